"""One writer per process for the forms a site's own host receives in the
event loop (builtit.own_hosts): each request hands its row over and waits
for its future; the writer's thread takes everything queued meanwhile and
keeps it in one transaction (services.submissions_receive), so SQLite's one
writer and a commit's fsync are paid once a batch, not once a submission.

Bounded: at most BUILTIT_FORMS_QUEUE rows wait, past which `submission_queue`
says no (the view answers 503 in words). A batch the database refuses is tried
again one row at a time, so only the row at fault fails, with its own error.
`writer_drain` (at shutdown) keeps what is queued before the process exits.

A request in the event loop waits on an asyncio future (`submission_queue_async`):
the writer wakes each loop once a batch, with every answer of the batch, not
once a row as asyncio.wrap_future would (a wake is a write to the loop's
self-pipe and a turn of the loop: 8% of the server's busy time at 200/s)."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import threading
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connections

from projects.models import FormSubmission
from projects.publish.forms.mail import mail_later
from projects.publish.forms.services import InboxFull, submissions_receive

logger = logging.getLogger(__name__)

Kept = FormSubmission | InboxFull
BATCH = 500  # rows in one transaction at most
DRAIN_WAIT = 10.0  # seconds the queue gets to be written at exit


@dataclass(frozen=True)
class _Queued:
    submission: FormSubmission
    future: Future[Kept]
    # A waiter in an event loop (submit_async), told by _wake once the batch is answered.
    waiter: asyncio.Future[Kept] | None = None


class Writer:
    def __init__(self) -> None:
        self._queue: deque[_Queued] = deque()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closing = False
        self._writing = 0  # rows taken from the queue, not answered yet

    def submit(self, submission: FormSubmission) -> Future[Kept] | None:
        """Queue `submission` (services.submission_made's); None when the
        queue is at its bound or the process is closing."""
        queued = self._queued(submission, None)
        return None if queued is None else queued.future

    def submit_async(self, submission: FormSubmission) -> asyncio.Future[Kept] | None:
        """As `submit`, answered in the running event loop (once a batch: _wake)."""
        queued = self._queued(submission, asyncio.get_running_loop().create_future())
        return None if queued is None else queued.waiter

    def _queued(
        self, submission: FormSubmission, waiter: asyncio.Future[Kept] | None
    ) -> _Queued | None:
        with self._ready:
            if self._closing or len(self._queue) >= settings.BUILTIT_FORMS_QUEUE:
                return None
            queued = _Queued(submission, Future(), waiter)
            self._queue.append(queued)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="builtit-forms-writer", daemon=True
                )
                self._thread.start()
            self._ready.notify()
            return queued

    def drain(self, timeout: float = DRAIN_WAIT) -> bool:
        """Take no more, and wait until what was queued is written; whether it was."""
        with self._ready:
            self._closing = True
            self._ready.notify()
            return self._ready.wait_for(
                lambda: not self._queue and not self._writing, timeout=timeout
            )

    def _run(self) -> None:
        try:
            while batch := self._next_batch():
                close_old_connections()
                try:
                    _write(batch)
                except Exception as error:
                    # A bug: logged once, and every request still waiting hears of it (a 500).
                    logger.exception("A batch of %d form submissions failed", len(batch))
                    for queued in batch:
                        if not queued.future.done():
                            queued.future.set_exception(error)
                finally:
                    _wake(batch)
                    with self._ready:
                        self._writing = 0
                        self._ready.notify_all()
        finally:
            connections.close_all()  # drained: the thread ends, and its connection with it

    def _next_batch(self) -> list[_Queued]:
        """What is queued (waiting for some), or nothing once drained."""
        with self._ready:
            while True:
                self._ready.wait_for(lambda: bool(self._queue) or self._closing)
                if not self._queue:
                    return []
                taken = [self._queue.popleft() for _ in range(min(BATCH, len(self._queue)))]
                # A future someone cancelled keeps nothing; the others can no longer be.
                batch = [queued for queued in taken if queued.future.set_running_or_notify_cancel()]
                _wake([queued for queued in taken if queued.future.cancelled()])
                if batch:
                    self._writing = len(batch)
                    return batch
                self._ready.notify_all()


def _write(batch: list[_Queued]) -> None:
    try:
        kept = submissions_receive(submissions=[queued.submission for queued in batch])
    except DatabaseError as error:
        logger.warning(
            "A batch of %d form submissions failed (%s): each tried again alone", len(batch), error
        )
        close_old_connections()  # a connection the error left unusable is opened again
        for queued in batch:
            _write_one(queued)
        return
    for queued, result in zip(batch, kept, strict=True):
        _answered(queued, result)


def _write_one(queued: _Queued) -> None:
    # The row as it was made: nothing of the failed batch kept (pk, mail).
    queued.submission.pk = None
    queued.submission._state.adding = True
    try:
        [result] = submissions_receive(submissions=[queued.submission])
    except DatabaseError as error:
        queued.future.set_exception(error)
        return
    _answered(queued, result)


def _wake(answered: list[_Queued]) -> None:
    """Every event loop waiting on `answered` woken once, with all of its answers."""
    by_loop: dict[asyncio.AbstractEventLoop, list[_Queued]] = {}
    for queued in answered:
        if queued.waiter is not None:
            by_loop.setdefault(queued.waiter.get_loop(), []).append(queued)
    for loop, waiting in by_loop.items():
        # A loop closed (the server stopped) has nobody waiting any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_told, waiting)


def _told(waiting: list[_Queued]) -> None:
    """In the waiters' loop: each one told what its future says."""
    for queued in waiting:
        waiter = queued.waiter
        if waiter is None or waiter.done():
            continue  # cancelled meanwhile: nobody to tell
        future = queued.future
        if not future.done():  # only if a BaseException ended the batch
            waiter.set_exception(RuntimeError("The forms' writer stopped mid-batch"))
        elif future.cancelled():
            waiter.cancel()
        elif (error := future.exception()) is not None:
            waiter.set_exception(error)
        else:
            waiter.set_result(future.result())


def _answered(queued: _Queued, result: Kept) -> None:
    queued.future.set_result(result)
    if isinstance(result, FormSubmission) and result.pk is not None:
        mail_later(submission_id=result.pk, mail=result.mail)  # outside any transaction: now


_writer = Writer()


def submission_queue(submission: FormSubmission) -> Future[Kept] | None:
    """Hand `submission` to this process's writer (None: no room, or closing)."""
    return _writer.submit(submission)


def submission_queue_async(submission: FormSubmission) -> asyncio.Future[Kept] | None:
    """As `submission_queue`, awaited in the running event loop."""
    return _writer.submit_async(submission)


def writer_drain(timeout: float = DRAIN_WAIT) -> bool:
    """What is queued, kept before the process exits (builtit.server.shutdown, atexit)."""
    return _writer.drain(timeout)


atexit.register(writer_drain)
