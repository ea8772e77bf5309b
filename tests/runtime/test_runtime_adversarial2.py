"""The runtime under attack, second round: big batches, edits and hostile input around find_paths,
PathQueue and PathCache."""

from __future__ import annotations

import tracemalloc

from shapely.geometry import box

import gamenav
from gamenav import NavMesh


def test_a_navmesh_batch_holds_the_work_arrays_of_one_search_per_thread() -> None:
    """find_paths built the search of every query before running any, and a navmesh search holds
    1-2 MB of work arrays until it ends: 800 exact queries held 1.7 GB at once (60 here: 126 MB).
    The threads now build their searches one at a time (errors are still raised before any runs)."""
    mesh = NavMesh.from_polygons(box(0, 0, 20, 10), obstacles=[box(4, 0, 5, 8), box(12, 2, 13, 10)])
    starts = [(1.0, 0.5 + (i % 9)) for i in range(60)]
    goals = [(19.0, 9.5 - (i % 7)) for i in range(60)]
    want = [gamenav.find_path(mesh, s, g, exact=True) for s, g in zip(starts, goals, strict=True)]
    tracemalloc.start()
    try:
        paths = gamenav.find_paths(mesh, starts, goals, workers=2, exact=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20
    assert [p.cost for p in paths] == [p.cost for p in want]
