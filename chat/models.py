"""Conversations and every message the loop sends or receives (DESIGN §2).

Everything is stored, so a conversation can be replayed, audited and continued.
A turn is a user message and what follows it up to the next user message; its
last assistant message carries the turn's outcome (chat.records.turn.TurnRecord).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from projects.models import Project


class Conversation(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True)
    # The request a project was started with on the dashboard, waiting for the
    # workspace's socket to send it (chat.openings); emptied as it is taken.
    opening = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["project", "-updated_at"])]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"


class Message(models.Model):
    class Role(models.TextChoices):
        SYSTEM = "system"
        USER = "user"
        ASSISTANT = "assistant"
        TOOL = "tool"

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    sequence = models.PositiveIntegerField()
    role = models.CharField(max_length=10, choices=Role.choices)
    content = models.TextField(blank=True)
    reasoning = models.TextField(blank=True)
    # As the model sent them: [{"id", "type": "function", "function": {"name", "arguments"}}].
    tool_calls = models.JSONField(default=list, blank=True)
    tool_call_id = models.CharField(max_length=200, blank=True)
    # Model, usage, finish reason, timings, error: read and written only as chat.records.
    metadata = models.JSONField(default=dict, blank=True)
    # The reported cost of the request that produced this assistant message, kept
    # as a column (not only in metadata) so caps and the admin can sum it in SQL.
    cost = models.DecimalField(max_digits=20, decimal_places=10, null=True, blank=True)
    # Whose turn the message is part of (the person who sent it, who pays for it:
    # chat.spending); empty for messages stored before projects were shared, and
    # for a person since deleted: the project's owner then.
    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["conversation", "sequence"]
        constraints = [
            models.UniqueConstraint(
                fields=["conversation", "sequence"], name="message_unique_sequence"
            )
        ]

    def __str__(self) -> str:
        return f"{self.role} #{self.sequence}"


class Compaction(models.Model):
    """A summary of a conversation's earlier turns, written by the model when the
    history grew past its budget (or when the person asked): from then on the
    model reads it instead of those turns. The turns themselves stay, shown and
    exported as they were; a later compaction covers this one's turns too."""

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="compactions"
    )
    # The turns whose person's message comes before this sequence number are covered.
    before_sequence = models.PositiveIntegerField()
    turns = models.PositiveIntegerField(help_text="How many turns it covers.")
    summary = models.TextField()
    tokens_before = models.PositiveIntegerField(help_text="Those turns as history, estimated.")
    tokens_after = models.PositiveIntegerField(help_text="The summary, estimated.")
    model = models.CharField(max_length=200)
    cost = models.DecimalField(max_digits=20, decimal_places=10, null=True, blank=True)
    by_hand = models.BooleanField(default=False, help_text="Asked for by the person.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["conversation", "before_sequence"]
        indexes = [models.Index(fields=["conversation", "-before_sequence"])]

    def __str__(self) -> str:
        return f"{self.turns} turns of conversation {self.conversation_id}"


class Charge(models.Model):
    """What one model request cost, in the person's spending ledger (chat.spending).

    The spending caps read this, not the messages: deleting a project for good
    deletes its conversations, and must not give its spending back. So the
    project and the message are only pointers, emptied when they go; the person
    and the amount stay."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="charges"
    )
    project = models.ForeignKey(
        Project, on_delete=models.SET_NULL, null=True, blank=True, related_name="charges"
    )
    project_name = models.CharField(max_length=100, help_text="As it was, for after it is gone.")
    message = models.OneToOneField(
        Message, on_delete=models.SET_NULL, null=True, blank=True, related_name="charge"
    )
    cost = models.DecimalField(max_digits=20, decimal_places=10)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "created_at"]),
            models.Index(fields=["project", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.cost} by {self.user_id} on {self.created_at:%Y-%m-%d}"


class SpendingHold(models.Model):
    """What a running turn (or a one-off request) has reserved of what the caps
    leave, and how much of its cost has reached the ledger since: the caps
    count the ledger and, of every hold, what is reserved and not yet there
    (chat.spending). Reserved in steps as its answers stream, deleted when it
    ends; so turns running side by side, in any process, cannot each spend
    what is left. A hold whose process died counts until it expires."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="spending_holds"
    )
    project = models.ForeignKey(
        Project, on_delete=models.SET_NULL, null=True, blank=True, related_name="spending_holds"
    )
    granted = models.DecimalField(max_digits=20, decimal_places=10, default=0)
    charged = models.DecimalField(max_digits=20, decimal_places=10, default=0)
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["user", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.granted} held for {self.user_id}"


class ChatImage(models.Model):
    """A picture a person attached to a message (a screenshot, a mockup, a photo):
    uploaded first, then sent with the message (chat.images)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_images"
    )
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="chat_images")
    # Set once the image went with a message; until then it waits in the message box.
    message = models.ForeignKey(
        Message, on_delete=models.CASCADE, null=True, blank=True, related_name="images"
    )
    name = models.CharField(max_length=120)
    content_type = models.CharField(max_length=40)
    size = models.PositiveIntegerField()
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    data = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.size} bytes)"


class ProjectSpending(Project):
    """Projects seen by what their chats cost, for the admin's totals."""

    class Meta:
        proxy = True
        verbose_name = "project spending"
        verbose_name_plural = "project spending"


class PersonalKey(models.Model):
    """A user's own OpenRouter API key, used for their chat turns instead of the server's.

    Stored encrypted (see chat.personal_keys, the only code that reads or writes
    `ciphertext`) so a leaked database dump or backup does not hand out keys that
    spend someone's money; only the last four characters are kept in the clear,
    so the page can say which key is saved.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="openrouter_key"
    )
    ciphertext = models.TextField()
    last_four = models.CharField(max_length=4)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "personal OpenRouter key"

    def __str__(self) -> str:
        return f"Key ending in …{self.last_four}"


class AccessToken(models.Model):
    """A personal access token: a script's way onto the chat socket without a
    browser session. Only a hash is stored (chat.access_tokens shows the token
    once, when it is made); revoking deletes the row."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens"
    )
    name = models.CharField(max_length=60)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=12, editable=False, help_text="Its first characters.")
    # False: it may only read (clone and pull a project's Git repository); it
    # opens neither the chat socket nor a push.
    can_write = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class PersonLimits(models.Model):
    """Staff's overrides of the server's per-person bounds for one person; a blank
    field uses the server's setting (BUILTIT_USER_*), 0 means no bound."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_limits"
    )
    daily_cost_limit = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, help_text="Per day, in credits."
    )
    monthly_cost_limit = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, help_text="Per month."
    )
    max_running_turns = models.PositiveIntegerField(
        null=True, blank=True, help_text="Turns running at once, across all projects."
    )

    class Meta:
        verbose_name = "person's limits"
        verbose_name_plural = "people's limits"

    def __str__(self) -> str:
        return f"Limits of {self.user}"
