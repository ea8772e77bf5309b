"""Change notification shared by every world that can be edited (``TileGrid``, ``NavMesh``).

:class:`Listeners` keeps the subscribers of one world and delivers each change record to all of
them, whatever they do meanwhile:

* every listener runs, even when an earlier one raises; the first exception is re-raised once all
  have run (later ones are logged on the ``"gamenav"`` logger), so a user's bug is reported but
  cannot keep a cache or a queue from hearing about an edit;
* subscribing or unsubscribing during a notification is safe: a notification goes to the
  listeners subscribed when it was made (also one queued behind another), minus those
  unsubscribed before their turn;
* changes arrive in order: a change notified from inside a listener (a listener that edits the
  world again) is delivered to everyone once the current one has reached every listener;
* ``weak=True`` holds the listener through a weak reference (a ``WeakMethod`` for bound methods),
  so a dropped agent or cache neither stays alive nor keeps receiving edits;
* subscription changes are guarded by a lock (edits and subscriptions may come from several
  threads).

Listeners run in the editing thread. :class:`Inbox` is what a subscriber used from one thread
(a queue, a cache, a crowd) puts between its listener and its state, so that an edit made in
another thread is acted on in the subscriber's own thread. :func:`added_state` is what a world's
copy keeps of the original (never its listeners).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Set
from types import ModuleType, TracebackType
from typing import Any, Generic, NoReturn, SupportsIndex, TypeVar

from gamenav._validate import flag
from gamenav.errors import InvalidInputError

__all__ = ["Closeable", "Closes", "CopyState", "Inbox", "Listeners", "NotCopyable", "Unsubscribe", "added_state",
           "no_waits", "without"]

C = TypeVar("C")
Unsubscribe = Callable[[], None]
"""Calling it ends a subscription; calling it again does nothing."""

_log = logging.getLogger("gamenav")

_holding = threading.local()
"""``depth``: how many :func:`no_waits` regions this thread is in."""


@contextlib.contextmanager
def no_waits() -> Iterator[None]:
    """A region whose code (a listener, a ``__del__`` a garbage collection runs) must not wait for
    a ``close()`` in another thread (:meth:`Closes.close`): this thread holds a lock that close may
    need (:meth:`Listeners.notify`: the world's edit lock; :meth:`Listeners._replace`: its own; the
    edit locks of grids and meshes, which their edits and a mesh's close take)."""
    _holding.depth = getattr(_holding, "depth", 0) + 1
    try:
        yield
    finally:
        _holding.depth -= 1


F = TypeVar("F", bound=Callable[..., object])


def _bound(fn: Callable[..., object]) -> bool:
    """Whether ``fn`` is a bound method (held weakly through a ``WeakMethod``, not ``ref``)."""
    return hasattr(fn, "__self__") and hasattr(fn, "__func__")


def _holder(fn: F, weak: bool) -> Callable[[], F | None]:
    """A getter of ``fn``: strong, or weak (None once ``fn`` or its bound object is gone).

    Raises:
        TypeError: ``weak`` and ``fn`` (or its bound object) cannot be weakly referenced.
    """
    if not weak:
        return lambda: fn
    if _bound(fn):
        return weakref.WeakMethod(fn)
    owner = getattr(fn, "__self__", None)
    if owner is not None and not isinstance(owner, ModuleType):  # a C method (deque.append): made per access
        ref, name = weakref.ref(owner), fn.__name__
        return lambda: None if (live := ref()) is None else getattr(live, name)
    return weakref.ref(fn)


class _Subscription(Generic[C]):
    """One listener, held strongly or through a weak reference."""

    __slots__ = ("_get", "active")

    def __init__(self, listener: Callable[[C], object], weak: bool) -> None:
        self._get = _holder(listener, weak)
        self.active = True

    def target(self) -> Callable[[C], object] | None:
        """The listener, or None once it was unsubscribed or garbage-collected."""
        return self._get() if self.active else None


class Listeners(Generic[C]):
    """The subscribers of one world; see the module docstring for the delivery guarantees."""

    def __init__(self) -> None:
        self._subs: tuple[_Subscription[C], ...] = ()
        self._lock = threading.RLock()  # re-entrant: see _replace
        self._local = threading.local()  # per thread: the changes waiting for the one being delivered

    def __len__(self) -> int:
        """Number of live subscriptions (weak ones whose target died are not counted)."""
        return sum(1 for s in self._subs if s.target() is not None)

    def subscribe(self, listener: Callable[[C], object], *, weak: bool = False) -> Unsubscribe:
        """Call ``listener(change)`` on every notification until the returned function is called.

        Args:
            listener: any callable taking the change record.
            weak: hold ``listener`` through a weak reference; the subscription ends by itself
                when the listener (or a bound method's object) is garbage-collected.

        Raises:
            TypeError: ``listener`` is not callable, or ``weak`` and it (or a bound method's
                object, such as the list of ``list.append``) cannot be weakly referenced (checked
                here, not at the next edit).
            InvalidInputError: ``weak`` is not a bool.
        """
        if not callable(listener):
            raise TypeError(f"listener must be callable, got {type(listener).__name__}")
        try:
            sub: _Subscription[C] = _Subscription(listener, flag(weak, "weak"))
        except TypeError as exc:
            raise TypeError(f"weak=True needs a listener that can be weakly referenced: {exc}") from None
        self._replace(lambda subs: tuple(s for s in subs if s.target() is not None) + (sub,))

        def unsubscribe() -> None:
            sub.active = False
            self._replace(lambda subs: tuple(s for s in subs if s is not sub))

        return unsubscribe

    def _replace(self, update: Callable[[tuple[_Subscription[C], ...]], tuple[_Subscription[C], ...]]) -> None:
        """Set the subscriptions to ``update(subscriptions)`` under the lock.

        A garbage collection may strike while the new tuple is built, and a ``__del__`` it runs
        may subscribe or unsubscribe (a unit that unsubscribes when dropped): in this thread, so
        the lock is re-entrant (a plain lock hung for ever), and the tuple is built again from
        the subscriptions that ``__del__`` left (a ``close()`` it makes does not wait: :func:`no_waits`)."""
        with no_waits(), self._lock:
            subs = None
            while subs is not self._subs:
                subs = self._subs
                new = update(subs)
            self._subs = new

    def clear(self) -> None:
        """End every subscription."""
        with self._lock:
            for sub in self._subs:
                sub.active = False
            self._subs = ()

    def notify(self, change: C) -> None:
        """Deliver ``change`` to every listener; re-raise the first listener error afterwards.

        Called from a listener (in the same thread), it queues ``change`` behind the change being
        delivered and returns at once: every listener hears the changes in the order notified.
        """
        waiting: deque[tuple[C, tuple[_Subscription[C], ...]]] | None = getattr(self._local, "waiting", None)
        if waiting is not None:
            waiting.append((change, self._subs))  # its listeners: those subscribed now
            return
        waiting = self._local.waiting = deque([(change, self._subs)])
        first: BaseException | None = None
        try:
            with no_waits():
                while waiting:
                    error = self._deliver(*waiting.popleft())
                    if first is None:
                        first = error
                    elif error is not None:
                        _log.error("gamenav: another change listener failed too", exc_info=error)
        finally:
            self._local.waiting = None
        if first is not None:
            raise first

    def _deliver(self, change: C, subs: tuple[_Subscription[C], ...]) -> BaseException | None:
        """Call the listeners ``subs`` still subscribed with ``change``; return the first error
        (later ones are logged). A ``KeyboardInterrupt`` or ``SystemExit`` in a listener waits too:
        the listeners after it (a cache, a queue) must still hear of the edit."""
        first: BaseException | None = None
        for sub in subs:
            listener = sub.target()
            if listener is None:
                continue
            try:
                listener(change)
            except BaseException as exc:  # a user's listener: report it after everyone has heard
                if first is None:
                    first = exc
                else:
                    _log.error("gamenav: another change listener failed too", exc_info=exc)
        return first


class Inbox:
    """The changes heard by a subscriber that is used from one thread, its *owner*.

    A world calls its listeners in the editing thread, which must not change the state of a
    subscriber that is not thread-safe (a queue, a cache, a crowd) while the owner may be using
    it. The subscriber's listener hands each change to :meth:`deliver` instead: in the owner
    thread the handler runs at once (after the changes still waiting, if any); in another
    thread the change waits, and the handler runs on it at the subscriber's next
    :meth:`catch_up`, in the order heard. Every public method of the subscriber that reads or
    changes state the edits affect calls :meth:`catch_up` (or :meth:`claim`) first.

    The owner is the thread that last called :meth:`claim` (the subscriber's main entry point:
    ``update()``, ``request()``, ``find_path()``), else the thread that made the inbox.

    Nothing may depend on when the owner catches up: worlds raise their ``version`` before
    notifying, and subscribers compare what they hold with it, so a change still waiting makes
    them miss or search again rather than answer from the old world.

    Args:
        handler: called as ``handler(*args)`` with the arguments of each :meth:`deliver`. A
            bound method is held through a ``WeakMethod`` (the subscriber owns its inbox: no
            reference cycle keeps it alive).
    """

    __slots__ = ("_handler", "_waiting", "_owner", "_draining")

    def __init__(self, handler: Callable[..., object]) -> None:
        self._handler = _holder(handler, weak=_bound(handler))
        self._waiting: deque[tuple[object, ...]] = deque()  # appended by any thread, taken by one
        self._owner = threading.get_ident()
        self._draining = False

    def __len__(self) -> int:
        """Changes waiting for :meth:`catch_up`."""
        return len(self._waiting)

    def deliver(self, *args: object) -> None:
        """Act on a change (``handler(*args)``) now in the owner thread, else at the next
        :meth:`catch_up`. Call it from the subscriber's listener."""
        self._waiting.append(args)
        if threading.get_ident() == self._owner:
            self.catch_up()

    def claim(self) -> None:
        """Make the calling thread the owner, then :meth:`catch_up`."""
        self._owner = threading.get_ident()
        self.catch_up()

    def catch_up(self) -> None:
        """Run the handler on every change waiting, oldest first (in the calling thread).

        Called again from inside the handler, it returns at once: the changes heard meanwhile
        are handled after the current one. If the handler raises, the error propagates and the
        changes after that one stay waiting for the next call.
        """
        if self._draining or not self._waiting:
            return
        self._draining = True
        try:
            while self._waiting:
                args = self._waiting.popleft()
                handler = self._handler()
                if handler is not None:
                    handler(*args)
        finally:
            self._draining = False

    def clear(self) -> None:
        """Forget the changes waiting (the subscriber was closed or dropped its state)."""
        self._waiting.clear()


CopyState = dict[str, Any] | tuple[dict[str, Any] | None, dict[str, Any]] | None
"""What a world's ``__getstate__`` returns: attributes, or ``(attributes, slots)``, or None."""


def added_state(obj: object, own: Set[str]) -> CopyState:
    """A world's default ``__getstate__``: the attributes of ``obj`` not named in ``own`` (those a
    subclass or the caller added), in its ``__dict__`` or in a subclass's ``__slots__`` (as
    ``(dict, slots)``, the pair pickle and ``copy`` restore slots from); None when there are none."""
    attrs = {name: value for name, value in vars(obj).items() if name not in own}
    slots: dict[str, Any] = {}
    for cls in type(obj).__mro__:
        names = cls.__dict__.get("__slots__", ())
        for name in (names,) if isinstance(names, str) else names:
            if name.startswith("__") and not name.endswith("__"):  # stored under its mangled name
                name = f"_{cls.__name__.lstrip('_')}{name}"
            if name not in own and name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                slots[name] = getattr(obj, name)
    if slots:
        return attrs or None, slots
    return attrs or None


def without(state: object, own: Set[str]) -> object:
    """A ``__getstate__`` result without the attributes named in ``own``: a subclass's own
    ``__getstate__`` may start from ``vars(self)``, which holds the world's listeners and lock."""
    if isinstance(state, tuple) and len(state) == 2:
        return tuple(without(part, own) for part in state)
    if isinstance(state, dict):
        return {name: value for name, value in state.items() if name not in own}
    return state


_C = TypeVar("_C", bound="Closes")


class NotCopyable:
    """Refuses ``copy.copy``, ``copy.deepcopy`` and pickle with a clear TypeError: a copy would
    share (or lack) the subscriptions and pending work of the original, so it would not follow
    the world's edits or would corrupt the original's bookkeeping."""

    __slots__ = ()
    _why_not_copyable = "they follow the edits of their worlds, which a copy would not (make a new one instead)"

    def __reduce_ex__(self, protocol: SupportsIndex) -> NoReturn:
        raise TypeError(f"{type(self).__name__} objects cannot be copied or pickled: {self._why_not_copyable}")


_closing: dict[int, tuple[int, threading.Event]] = {}
"""The :class:`Closes` objects whose ``_close`` runs now, by ``id()``: the thread running it and
the event set when it ends."""
_waiting_for: dict[int, int] = {}
"""Threads whose ``close()`` waits for a ``close()`` in another thread: waiter -> closer."""
_closing_lock = threading.Lock()
"""Guards the two dicts. Nothing under it makes an object the garbage collector tracks: a
collection there may run a ``__del__`` that closes something, and this lock is not re-entrant."""


def _may_deadlock(me: int, closer: int, holding: bool) -> bool:
    """Whether thread ``me`` must not wait for the ``close()`` that thread ``closer`` runs (under
    ``_closing_lock``): it is ``me`` (re-entrant), or waits for one ``me`` runs (through a chain of
    waits), or ``me`` is ``holding`` a lock it may need (:func:`no_waits`)."""
    while closer != me and closer in _waiting_for:
        closer = _waiting_for[closer]
    return closer == me or holding


class Closes:
    """``close()``, ``closed`` and ``with`` support for an object that follows a world's edits.

    Subclasses implement :meth:`_close` (run once, by the first :meth:`close`) and call
    :meth:`_check_open` before acting; state stays readable after closing.
    """

    _closed = False

    def close(self) -> None:
        """End the subscriptions and the pending work (idempotent; see the class docstring).

        When it returns, the object is closed: a ``close()`` made in another thread while one
        runs waits for it. One made by the code the running close runs (a listener, a
        ``__del__``, a callback) returns at once, and so does one that waiting could deadlock:
        made by a change listener (it runs under its world's edit lock, which the running close
        may wait for: that close ends after the edit), by a ``__del__`` run while this thread
        subscribes or unsubscribes (under the lock the running close unsubscribes with) or by a
        close the running one waits for.
        If closing raises, the object stays open and the next ``close()`` tries again.
        """
        if self._closed:
            return
        me = threading.get_ident()
        mine = (me, threading.Event())  # (made before taking _closing_lock: see there)
        holding = getattr(_holding, "depth", 0) > 0
        while True:
            with _closing_lock:
                if self._closed:
                    return
                running = _closing.get(id(self))
                if running is None:
                    _closing[id(self)] = mine
                    break
                if _may_deadlock(me, running[0], holding):
                    return
                _waiting_for[me] = running[0]
            try:
                running[1].wait()
            finally:
                with _closing_lock:
                    del _waiting_for[me]
        try:
            self._close()
            self._closed = True
        finally:
            with _closing_lock:
                _, done = _closing.pop(id(self))
            done.set()

    def _close(self) -> None:
        raise NotImplementedError

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _check_open(self, action: str) -> None:
        """Raise InvalidInputError ``cannot {action} a closed {class name}`` once closed."""
        if self._closed:
            raise InvalidInputError(f"cannot {action} a closed {type(self).__name__}")


class Closeable(Closes, NotCopyable):
    """:class:`Closes`, for objects whose pending work a copy would share or lack (not copyable:
    see :class:`NotCopyable`)."""
