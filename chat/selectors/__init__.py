"""Every read the chat does that is more than a lookup (the writes are in
chat.services), one module per subject:

    conversations  which one a page asked for, its title, next sequence number,
                   summaries, usage and context
    turns          a turn's span, its revisions and outcome, pages of turns
    running        running turns (the project's lock of purpose TURN_LOCK)
    past_turns     earlier turns as the model reads them

The rules that answer "which messages", each in one place:
- sequence numbers: a conversation's next one is one past its highest
  (`next_sequence`; a running turn reserves its own: chat.agent.recorder);
- a turn is a person's message and the messages after it up to their next one
  (`turn_end`, `turn_messages`, `turn_of`, `turn_groups`); its closing message
  carries its outcome (chat.records.turn.TurnRecord);
- a running turn is the project's lock of purpose TURN_LOCK (`running_turn`).
"""
