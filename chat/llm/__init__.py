"""The OpenRouter client: everything that knows the chat-completions wire protocol.

    async with get_client().stream(request) as pieces:
        assembler = MessageAssembler()
        async for piece in pieces:
            assembler.add(piece)      # and show it to the person
    message = assembler.message()

Nothing outside this package builds a request body or reads an SSE line.
"""

from chat.llm.assembler import MessageAssembler
from chat.llm.catalog import ModelInfo
from chat.llm.client import ChatStream, LLMClient, close_client, get_client
from chat.llm.config import ClientConfig
from chat.llm.deltas import (
    OUTPUT_EVENTS,
    ContentDelta,
    Finish,
    ReasoningDelta,
    ReasoningDetailsDelta,
    ResponseInfo,
    StreamEvent,
    ToolCallDelta,
    UsageReport,
)
from chat.llm.errors import (
    AnswerTooLargeError,
    AnswerTooSlowError,
    AuthenticationError,
    BadRequestError,
    ContextTooLongError,
    CostCapError,
    InStreamError,
    InsufficientCreditsError,
    LimitError,
    LLMError,
    ModelNotFoundError,
    ModerationError,
    RateLimitedError,
    StalledError,
    StreamCutError,
    UnavailableError,
)
from chat.llm.messages import AssistantMessage, ChatMessage, ToolCall, ToolSpec, Usage
from chat.llm.request import ChatRequest, ForcedTool, ModelParameters, Reasoning, ToolChoice

__all__ = [
    "OUTPUT_EVENTS",
    "AnswerTooLargeError",
    "AnswerTooSlowError",
    "AssistantMessage",
    "AuthenticationError",
    "BadRequestError",
    "ChatMessage",
    "ChatRequest",
    "ChatStream",
    "ClientConfig",
    "ContentDelta",
    "ContextTooLongError",
    "CostCapError",
    "Finish",
    "ForcedTool",
    "InStreamError",
    "InsufficientCreditsError",
    "LLMClient",
    "LLMError",
    "LimitError",
    "MessageAssembler",
    "ModelInfo",
    "ModelNotFoundError",
    "ModelParameters",
    "ModerationError",
    "RateLimitedError",
    "Reasoning",
    "ReasoningDelta",
    "ReasoningDetailsDelta",
    "ResponseInfo",
    "StalledError",
    "StreamCutError",
    "StreamEvent",
    "ToolCall",
    "ToolCallDelta",
    "ToolChoice",
    "ToolSpec",
    "UnavailableError",
    "Usage",
    "UsageReport",
    "close_client",
    "get_client",
]
