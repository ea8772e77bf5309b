"""gamenav._events.Listeners and TileGrid.subscribe: robust, re-entrant, weak notification."""

from __future__ import annotations

import copy
import gc
import logging
import pickle
import threading
import weakref
from collections import deque
from collections.abc import Callable

import numpy as np
import pytest

from gamenav import GridChange, InvalidInputError, NavMesh, TileGrid
from gamenav._events import Listeners, _Subscription


def test_every_listener_runs_and_the_first_error_is_raised_after_all(caplog) -> None:
    events: Listeners[int] = Listeners()
    heard: list[str] = []

    def bad(name: str) -> Callable[[int], None]:
        def listener(change: int) -> None:
            heard.append(name)
            raise RuntimeError(f"{name} failed on {change}")
        return listener

    events.subscribe(bad("first"))
    events.subscribe(lambda change: heard.append("middle"))
    events.subscribe(bad("second"))
    events.subscribe(lambda change: heard.append("last"))
    with caplog.at_level(logging.ERROR, logger="gamenav"), pytest.raises(RuntimeError, match="first failed on 7"):
        events.notify(7)
    assert heard == ["first", "middle", "second", "last"]
    assert "another change listener failed" in caplog.text and "second failed" in caplog.text


def test_a_raising_grid_listener_does_not_hide_the_edit_from_later_ones() -> None:
    grid = TileGrid(np.ones((2, 3), bool))
    seen: list[int] = []
    grid.subscribe(lambda change: 1 / 0)
    grid.subscribe(lambda change: seen.append(change.version))
    with pytest.raises(ZeroDivisionError):
        grid.set_walkable((1, 1), False)
    assert seen == [1] and grid.version == 1 and not grid.is_passable(1, 1)


def test_unsubscribing_itself_or_a_later_listener_during_notification() -> None:
    events: Listeners[int] = Listeners()
    heard: list[str] = []
    handles: dict[str, Callable[[], None]] = {}

    def once(change: int) -> None:
        heard.append(f"once{change}")
        handles["once"]()

    def killer(change: int) -> None:
        heard.append(f"killer{change}")
        handles["victim"]()

    handles["once"] = events.subscribe(once)
    handles["killer"] = events.subscribe(killer)
    handles["victim"] = events.subscribe(lambda change: heard.append(f"victim{change}"))
    events.subscribe(lambda change: heard.append(f"tail{change}"))
    events.notify(1)
    assert heard == ["once1", "killer1", "tail1"]  # the victim was removed before its turn
    events.notify(2)
    assert heard[3:] == ["killer2", "tail2"] and len(events) == 2
    handles["once"]()  # unsubscribing twice does nothing
    assert len(events) == 2


def test_subscribing_during_notification_starts_with_the_next_one() -> None:
    events: Listeners[int] = Listeners()
    heard: list[str] = []

    def spawner(change: int) -> None:
        heard.append(f"spawner{change}")
        if change == 1:
            events.subscribe(lambda c: heard.append(f"new{c}"))

    events.subscribe(spawner)
    events.notify(1)
    events.notify(2)
    assert heard == ["spawner1", "spawner2", "new2"]


def test_a_listener_subscribed_after_a_queued_edit_does_not_hear_that_edit() -> None:
    """A listener subscribed inside a listener after a nested edit heard that edit, which its
    subscriber had already seen on the grid: an incremental wall count said 3 walls for 2."""
    grid = TileGrid(np.ones((3, 4), bool))
    walls: list[int] = []

    def count(change: GridChange) -> None:
        walls[0] += len(change.blocked) - len(change.opened)

    def door(change: GridChange) -> None:
        if change.version == 1:
            grid.set_walkable((3, 2), False)  # version 2, delivered after version 1
            walls.append(int((~grid.passable).sum()))  # a new counter sees both walls
            grid.subscribe(count)

    grid.subscribe(door)
    grid.set_walkable((0, 0), False)
    assert walls == [2]
    grid.set_walkable((1, 1), False)  # it hears the edits notified after it subscribed
    assert walls == [3] == [int((~grid.passable).sum())]


def test_a_collection_inside_subscribe_may_run_a_del_that_subscribes_or_unsubscribes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A garbage collection that struck while subscribe rebuilt its tuple ran the __del__ of
    dropped units: one that unsubscribes took the subscriptions' lock again and hung for ever
    (a plain lock); one that subscribes must not lose its subscription either."""
    grid = TileGrid(np.ones((2, 2), bool))
    heard: list[str] = []

    class Unit:
        def __init__(self, on_drop: Callable[[Unit], None]) -> None:
            self.me = self  # a cycle: only a collection frees it
            self.on_drop = on_drop
            self.unsubscribe = grid.subscribe(self.on_change, weak=True)

        def on_change(self, change: GridChange) -> None:
            heard.append("unit")

        def __del__(self) -> None:
            self.on_drop(self)

    strike = [gc.collect]
    target = _Subscription.target

    def collecting(sub: _Subscription[GridChange]) -> Callable[[GridChange], object] | None:
        if strike:
            strike.pop()()  # the collection strikes here, inside subscribe
        return target(sub)

    gc.disable()
    try:
        Unit(lambda unit: unit.unsubscribe())
        Unit(lambda unit: grid.subscribe(lambda change: heard.append("corpse")))
        monkeypatch.setattr(_Subscription, "target", collecting)
        subscriber = threading.Thread(target=grid.subscribe, args=(lambda change: heard.append("new"),), daemon=True)
        subscriber.start()
        subscriber.join(10)  # (the old code never returned)
    finally:
        gc.enable()
    assert not subscriber.is_alive() and not strike
    grid.set_walkable((0, 0), False)
    assert sorted(heard) == ["corpse", "new"] and len(grid._listeners) == 2


def test_a_listener_that_edits_again_does_not_reorder_the_changes() -> None:
    grid = TileGrid(np.ones((3, 3), bool))
    heard: list[tuple[str, int]] = []

    def editor(change: GridChange) -> None:
        heard.append(("editor", change.version))
        if change.version == 1:
            nested = grid.set_walkable((2, 2), False)  # applied at once, delivered after this one
            assert nested is not None and nested.version == 2 and grid.version == 2

    grid.subscribe(editor)
    grid.subscribe(lambda change: heard.append(("later", change.version)))
    grid.set_walkable((0, 0), False)
    assert heard == [("editor", 1), ("later", 1), ("editor", 2), ("later", 2)]
    grid.set_walkable((1, 1), False)  # delivery is back to normal afterwards
    assert heard[4:] == [("editor", 3), ("later", 3)]


def test_a_queued_change_still_reaches_everyone_when_a_listener_raises() -> None:
    events: Listeners[int] = Listeners()
    heard: list[int] = []

    def first(change: int) -> None:
        heard.append(change)
        if change == 1:
            events.notify(2)  # queued behind 1
            raise RuntimeError("first failed")

    events.subscribe(first)
    events.subscribe(lambda change: heard.append(-change))
    with pytest.raises(RuntimeError, match="first failed"):
        events.notify(1)
    assert heard == [1, -1, 2, -2]
    events.notify(3)
    assert heard[4:] == [3, -3]


def test_an_interrupt_in_a_listener_waits_until_everyone_has_heard() -> None:
    events: Listeners[int] = Listeners()
    heard: list[int] = []

    def first(change: int) -> None:
        heard.append(change)
        if change == 1:
            events.notify(2)
            raise KeyboardInterrupt

    events.subscribe(first)
    events.subscribe(lambda change: heard.append(-change))  # a cache after the user's listener
    with pytest.raises(KeyboardInterrupt):
        events.notify(1)
    assert heard == [1, -1, 2, -2]


class _Owner:
    def __init__(self, heard: list[int]) -> None:
        self.heard = heard

    def on_version(self, change: GridChange) -> None:
        self.heard.append(change.version)


def test_weak_listeners_die_with_their_owner() -> None:
    events: Listeners[int] = Listeners()
    heard: list[int] = []

    def function(change: int) -> None:
        heard.append(-change)

    events.subscribe(function, weak=True)
    events.notify(1)
    assert heard == [-1] and len(events) == 1
    del function
    gc.collect()
    events.notify(2)
    assert heard == [-1] and len(events) == 0


def test_a_weak_bound_method_does_not_keep_its_object_alive() -> None:
    grid = TileGrid(np.ones((2, 2), bool))
    heard: list[int] = []
    owner = _Owner(heard)
    alive = weakref.ref(owner)
    unsubscribe = grid.subscribe(owner.on_version, weak=True)  # held through a WeakMethod
    grid.subscribe(lambda change: heard.append(-change.version))  # strong, for contrast
    grid.set_walkable((0, 0), False)
    assert [abs(v) for v in heard] == [1, 1] and len(grid._listeners) == 2
    del owner  # no cycle through the grid: reference counting frees it at once
    assert alive() is None
    grid.set_walkable((0, 0), True)
    assert heard[2:] == [-2] and len(grid._listeners) == 1
    unsubscribe()  # a dead subscription's unsubscribe is harmless
    assert len(grid._listeners) == 1


def test_subscribe_rejects_non_callables_at_once() -> None:
    with pytest.raises(TypeError, match="listener must be callable, got int"):
        Listeners().subscribe(5)  # type: ignore[arg-type]


@pytest.mark.parametrize("weak", ["no", None, 2])
def test_subscribe_refuses_a_weak_flag_that_is_not_a_bool(weak: object) -> None:
    """``weak="no"`` is truthy: the listener was held weakly, so a lambda made for the call was
    dropped at once and never heard an edit."""
    grid = TileGrid(np.ones((1, 2), bool))
    with pytest.raises(InvalidInputError, match="weak must be a bool, got"):
        grid.subscribe(lambda change: None, weak=weak)  # type: ignore[arg-type]
    assert len(grid._listeners) == 0


def test_a_weak_method_of_a_builtin_type_hears_edits_while_its_object_lives() -> None:
    # deque.append has no __func__: it was held through a weakref to the method object made
    # for the call, which died at once (the subscription never heard an edit)
    grid = TileGrid(np.ones((2, 2), bool))
    heard: deque[GridChange] = deque()
    alive = weakref.ref(heard)
    grid.subscribe(heard.append, weak=True)
    grid.set_walkable((0, 0), False)
    assert [change.version for change in heard] == [1] and len(grid._listeners) == 1
    del heard
    assert alive() is None
    grid.set_walkable((0, 0), True)
    assert len(grid._listeners) == 0
    grid.subscribe(print, weak=True)  # a module's function: held as before
    assert len(grid._listeners) == 1
    with pytest.raises(TypeError, match="weak=True needs a listener that can be weakly referenced"):
        grid.subscribe([].append, weak=True)  # a list cannot be weakly referenced: refused, not silent


class _SlottedMesh(NavMesh):
    __slots__ = ("extra",)


def test_copies_and_pickles_of_a_navmesh_subclass_keep_the_values_of_its_slots() -> None:
    """NavMesh.__reduce__ copied only vars(self), as TileGrid's did: a subclass's __slots__ values
    were lost (extra=5 came back missing); the listeners stay the original's alone."""
    mesh = _SlottedMesh([(0, 0), (4, 0), (4, 4), (0, 4)], [(0, 1, 2), (0, 2, 3)])
    mesh.extra = [5]
    mesh.subscribe(lambda change: None)
    for twin in (copy.copy(mesh), copy.deepcopy(mesh), pickle.loads(pickle.dumps(mesh))):
        assert type(twin) is _SlottedMesh and twin.extra == [5] and len(twin._listeners) == 0
        assert twin.version != mesh.version and twin.triangles.tolist() == mesh.triangles.tolist()
    assert copy.copy(mesh).extra is mesh.extra and copy.deepcopy(mesh).extra is not mesh.extra


class _TexturedMesh(NavMesh):
    """A subclass leaving out an attribute pickle cannot take, as Python documents."""

    def __getstate__(self) -> dict[str, object]:
        state = dict(super().__getstate__() or {})
        del state["texture"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        vars(self).update(state)
        self.texture = threading.Lock()


def test_copies_and_pickles_of_a_navmesh_subclass_follow_its_getstate() -> None:
    """NavMesh.__reduce__ ignored a subclass's __getstate__: deepcopy and pickle raised "cannot
    pickle '_thread.lock' object" for the attribute it leaves out."""
    mesh = _TexturedMesh.from_polygons([[(0, 0), (4, 0), (4, 4), (0, 4)]], agent_radius=0.5)
    mesh.texture, mesh.name = threading.Lock(), "arena"
    for twin in (copy.copy(mesh), copy.deepcopy(mesh), pickle.loads(pickle.dumps(mesh))):
        assert type(twin) is _TexturedMesh and twin.name == "arena" and twin.texture is not mesh.texture
        assert twin.agent_radius == 0.5 and twin._listeners is not mesh._listeners
