"""What a stored message says about itself (`Message.metadata`, and the tool
calls in `Message.tool_calls`), as typed records, one module each:

    user_message    UserRecord: a person's message: the model asked, attachments,
                    pictures, whether it asked for a plan only
    reply           AssistantRecord: an assistant message: its ReplyRecord (the
                    request that produced it, when one did) and, on the message
                    that closes a turn, its TurnRecord (`stored_turn`)
    turn            TurnRecord: a turn's outcome (`metadata["turn"]`), with its
                    TurnError and ToolTimings
    site_check      SiteCheckRecord: the check of the site at a turn's end
    context_window  ContextRecord: how full the model's context was
    tool_result     ToolRecord: a tool result: which tool, whether it worked, how long
    tool_calls      CallRecord: one tool call an assistant message stores
                    (`Message.tool_calls`, as the wire has it): id, name, arguments
    reading         the lenient readers they share

Each is written through `to_stored()` (chat.services takes the record, never a
raw dict) and read through its one `from_stored()`,
which takes whatever the column holds (rows from older versions, rows written
by hand or by tests) and never raises: what is missing or malformed reads as
its empty value. Nothing else looks inside the column.
"""
