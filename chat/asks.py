"""The words that open the requests Built-It makes of a model outside a turn's
rounds (chat.agent.one_shot), in one place: the agent writes them, and the
offline demo (demo/) knows such a request by them, as a model would by
reading it."""

SUMMARY_TASK = "Summarise this website-building conversation so far."
IMPROVE_TASK = "You rewrite a person's request to Built-It, a website builder, before they send it."
