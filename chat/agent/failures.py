"""Provider failures in words a person understands, with the next step."""

from __future__ import annotations

from chat.agent.events import ErrorEvent
from chat.llm import (
    AnswerTooLargeError,
    AnswerTooSlowError,
    AuthenticationError,
    BadRequestError,
    ContextTooLongError,
    CostCapError,
    InStreamError,
    InsufficientCreditsError,
    LLMError,
    ModelNotFoundError,
    ModerationError,
    RateLimitedError,
    StalledError,
    UnavailableError,
)

NO_KEY = (
    "No API key: set OPENROUTER_API_KEY on the server (https://openrouter.ai/keys), "
    "or add your own key in Settings. To try Built-It without one, pick the offline "
    "demo model (“Demo”)."
)

# A bug of ours, not the provider's: what the person is told (the details are logged).
INTERNAL_ERROR = ErrorEvent(
    "internal_error",
    "Something went wrong on the server while running this turn; it has been "
    "logged. Your files are as the last finished step left them. Try again.",
    retryable=True,
)


def error_event(error: LLMError, *, model: str, has_key: bool, attempts: int) -> ErrorEvent:
    code, message = _describe(error, model=model, has_key=has_key, attempts=attempts)
    detail = error.upstream_message.strip()
    if detail and detail not in message and not isinstance(error, AuthenticationError):
        message += f" (The provider said: {detail})"
    return ErrorEvent(code, message, error.retryable)


def _describe(error: LLMError, *, model: str, has_key: bool, attempts: int) -> tuple[str, str]:
    if isinstance(error, AuthenticationError) and not has_key:
        return "no_api_key", NO_KEY
    tried = f" after {attempts} attempts" if attempts > 1 else ""
    wait = "Wait a minute"
    if error.retry_after and error.retry_after > 60:
        wait = f"Wait about {_duration(error.retry_after)}, as the provider asks,"
    for kind, code, template in _MESSAGES:
        if isinstance(error, kind):
            return code, template.format(model=model, tried=tried, detail=error.message, wait=wait)
    return "provider_error", f"The model provider failed: {error.message}"


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{minutes} minutes"
    return f"{round(minutes / 60)} hours"


# Most specific first: the first class that matches speaks.
_MESSAGES: tuple[tuple[type[LLMError], str, str], ...] = (
    (CostCapError, "cost_limit", "{detail}"),
    (
        AnswerTooLargeError,
        "answer_too_large",
        "{detail}, so the turn was ended; what was done until then is kept. Ask for less "
        "at a time, or pick another model.",
    ),
    (
        AnswerTooSlowError,
        "too_slow",
        "{detail}, so the turn was ended; what was done until then is kept. Try again, "
        "or pick another model.",
    ),
    (
        AuthenticationError,
        "bad_api_key",
        "The provider refused the API key. Check OPENROUTER_API_KEY on the server, or the key "
        "in your Settings, then try again.",
    ),
    (
        InsufficientCreditsError,
        "no_credits",
        "The OpenRouter account has run out of credits. Add credits at "
        "https://openrouter.ai/settings/credits, or pick a free model, then try again.",
    ),
    (ModerationError, "moderated", "The provider's moderation refused this request."),
    (
        ContextTooLongError,
        "context_too_long",
        "The conversation no longer fits {model}'s context. Start a new conversation, or pick "
        "a model with a larger context.",
    ),
    (
        ModelNotFoundError,
        "model_not_found",
        "The provider does not offer the model {model}. Pick another model.",
    ),
    (BadRequestError, "bad_request", "The provider refused the request: {detail}"),
    (
        RateLimitedError,
        "rate_limited",
        "The model is rate limited{tried}. {wait} and try again, or pick another model.",
    ),
    (
        StalledError,
        "stalled",
        "The model stopped answering{tried}. Try again, or pick another model.",
    ),
    (
        UnavailableError,
        "unavailable",
        "The model provider is unavailable right now{tried}. Try again in a moment, or pick "
        "another model.",
    ),
    (
        InStreamError,
        "provider_error",
        "The provider reported an error in the middle of the answer. Try again, or pick "
        "another model.",
    ),
)
