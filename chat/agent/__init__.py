"""The turn as an async generator of events: the loop that asks the model and runs
its tool calls, the prompt, the limits, the model's choice, provider failures in
words, and the recording of messages. No Channels, no templates, no HTML."""
