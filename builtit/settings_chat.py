"""The chat's settings, read from environment variables (docs/configuration.md):
the model provider, and the bounds on turns, spending and the chat socket.
builtit.settings imports each by name."""

from __future__ import annotations

from builtit.env import env_bool, env_decimal, env_float, env_int, env_list, env_str

# --- The model provider (DESIGN §4) ----------------------------------------

# Any OpenAI-compatible server works: OpenRouter by default, or a local one
# (Ollama, vLLM, llama.cpp, LM Studio), or the offline fake in fakes/ (make fake-openrouter).
OPENROUTER_BASE_URL = env_str("OPENROUTER_BASE_URL", "https://openrouter.ai/api/v1").strip()
OPENROUTER_API_KEY = env_str("OPENROUTER_API_KEY", "").strip()
# Sent as HTTP-Referer and X-Title so OpenRouter can attribute the requests.
BUILTIT_APP_URL = env_str("BUILTIT_APP_URL", "http://127.0.0.1:8000").strip()
BUILTIT_APP_TITLE = env_str("BUILTIT_APP_TITLE", "Built-It").strip()
OPENROUTER_CONNECT_TIMEOUT = env_float("OPENROUTER_CONNECT_TIMEOUT", 10.0, minimum=0.1)
# Longest silence between two pieces of a streamed answer before it counts as stalled.
OPENROUTER_READ_TIMEOUT = env_float("OPENROUTER_READ_TIMEOUT", 120.0, minimum=0.1)
OPENROUTER_MAX_RETRIES = env_int("OPENROUTER_MAX_RETRIES", 3)
# A rate limit asking for a longer wait than this is reported at once instead.
OPENROUTER_RETRY_MAX_WAIT = env_float("OPENROUTER_RETRY_MAX_WAIT", 60.0)

# --- The tool loop (DESIGN §5, §6) -------------------------------------------

BUILTIT_DEFAULT_MODEL = env_str("BUILTIT_DEFAULT_MODEL", "google/gemini-2.5-flash-lite").strip()
# The offline demo (demo/): a scripted model served in-process, offered in
# the picker as "Demo (offline, scripted)" and the default when no model can be
# reached (no key, OpenRouter's address). Off in production, if you like.
BUILTIT_DEMO_ENABLED = env_bool("BUILTIT_DEMO", True)
# Seconds between the demo's streamed pieces, so a page shows them arriving.
BUILTIT_DEMO_PAUSE = 0.02
# Pictures with a chat message (chat.images): bytes each, how many per message,
# and the models known to read them (shell-style patterns; others are refused
# before any request is made).
BUILTIT_MAX_CHAT_IMAGE_BYTES = env_int("BUILTIT_MAX_CHAT_IMAGE_BYTES", 5 * 1024 * 1024)
BUILTIT_MAX_CHAT_IMAGES = 4
BUILTIT_IMAGE_MODELS = env_list(
    "BUILTIT_IMAGE_MODELS",
    "google/gemini-*,anthropic/claude-*,openai/gpt-4o*,openai/gpt-4.1*,openai/gpt-5*,"
    "openai/o3*,openai/o4*,x-ai/grok-4*,meta-llama/llama-4-*,qwen/qwen*-vl-*,mistralai/pixtral-*",
)
# Offered in the model picker; any other model id is accepted too.
BUILTIT_MODELS = env_list(
    "BUILTIT_MODELS",
    "google/gemini-2.5-flash-lite,google/gemini-2.5-flash,google/gemini-2.5-pro,"
    "anthropic/claude-sonnet-4.5,anthropic/claude-haiku-4.5,openai/gpt-5-mini,openai/gpt-5,"
    "x-ai/grok-code-fast-1,qwen/qwen3-coder,deepseek/deepseek-chat-v3.1",
)
# Largest websocket frame the chat sends (daphne closes a socket at 1 MiB): a
# tab catching up gets the recent turns that fit, the rest on "Show earlier".
BUILTIT_MAX_FRAME_BYTES = env_int("BUILTIT_MAX_FRAME_BYTES", 256 * 1024, minimum=128 * 1024)
# Chat sockets (tabs) one address may hold at once, an IPv6 /64 as one; the next
# is closed with a code the page explains (chat.live.socket_limit). Counted
# across processes with Redis, in each process otherwise. 0: no bound.
BUILTIT_MAX_SOCKETS_PER_ADDRESS = env_int("BUILTIT_MAX_SOCKETS_PER_ADDRESS", 50, minimum=0)
# Turns a chat panel shows at first (and per "Show earlier"), within that size.
BUILTIT_CHAT_PAGE_TURNS = env_int("BUILTIT_CHAT_PAGE_TURNS", 20, minimum=1)
# Longest chat message a person may send (DESIGN §3).
BUILTIT_MAX_MESSAGE_CHARS = env_int("BUILTIT_MAX_MESSAGE_CHARS", 20_000, minimum=1)
# Model requests with tools per turn; then one last answer without tools.
BUILTIT_MAX_ITERATIONS = env_int("BUILTIT_MAX_ITERATIONS", 10, minimum=1)
# Earlier turns sent with each request, newest first, until this estimate is spent.
BUILTIT_HISTORY_TOKENS = env_int("BUILTIT_HISTORY_TOKENS", 16_000)
# When earlier turns no longer fit that budget (or a quarter of the model's
# context window, if smaller), the oldest are summarised by the model into one
# stored summary it reads instead (chat.agent.compaction); 0: they are left out.
BUILTIT_COMPACTION = env_bool("BUILTIT_COMPACTION", True)
# The context window assumed for a model whose provider's list does not say
# (a local server, the list unreachable): small enough for most models.
BUILTIT_DEFAULT_CONTEXT_TOKENS = env_int("BUILTIT_DEFAULT_CONTEXT_TOKENS", 32_768, minimum=4_096)
# Spending caps in credits (US dollars on OpenRouter); 0 turns a cap off.
# A project can set its own in the admin.
BUILTIT_TURN_COST_LIMIT = env_decimal("BUILTIT_TURN_COST_LIMIT", "1.00")
BUILTIT_PROJECT_COST_LIMIT = env_decimal("BUILTIT_PROJECT_COST_LIMIT", "25.00")
# Answer tokens a model request asks for at most (its max_tokens), when the
# provider's model list does not give the model's own limit; within the caps,
# fewer when what is left under a spending cap pays for fewer (chat.agent.budget).
BUILTIT_MAX_ANSWER_TOKENS = env_int("BUILTIT_MAX_ANSWER_TOKENS", 16_384, minimum=1024)
# Bounds on one answer of the model and one turn, so that a broken or hostile
# model server cannot take the memory or the time of the machine. Reaching one
# ends the turn in words, keeping what was done.
# Text, reasoning and tool arguments of one answer together, in bytes.
BUILTIT_MAX_ANSWER_BYTES = env_int("BUILTIT_MAX_ANSWER_BYTES", 8 * 1024 * 1024, minimum=1024)
# Tool calls run from one answer; the rest are answered as refused.
BUILTIT_MAX_TOOL_CALLS_PER_ANSWER = env_int("BUILTIT_MAX_TOOL_CALLS_PER_ANSWER", 30, minimum=1)
# Seconds one model request may take, its retries included.
BUILTIT_REQUEST_TIME_LIMIT = env_float("BUILTIT_REQUEST_TIME_LIMIT", 600.0, minimum=1.0)
# Seconds one whole turn may take.
BUILTIT_TURN_TIME_LIMIT = env_float("BUILTIT_TURN_TIME_LIMIT", 1800.0, minimum=1.0)
# Bounds per person, across all their projects (chat.agent.person_limits); staff can
# set other ones for a person in the admin. 0 turns a bound off.
BUILTIT_USER_DAILY_COST_LIMIT = env_decimal("BUILTIT_USER_DAILY_COST_LIMIT", "5.00")
BUILTIT_USER_MONTHLY_COST_LIMIT = env_decimal("BUILTIT_USER_MONTHLY_COST_LIMIT", "50.00")
BUILTIT_MAX_TURNS_PER_PERSON = env_int("BUILTIT_MAX_TURNS_PER_PERSON", 2, minimum=0)
# Seconds one tool call may take before it is reported to the model as timed out.
BUILTIT_TOOL_TIMEOUT = env_float("BUILTIT_TOOL_TIMEOUT", 30.0, minimum=0.1)
