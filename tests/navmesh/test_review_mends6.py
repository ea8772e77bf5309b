"""Mends of this session's navmesh fixes (a review of their commits)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gamenav.navmesh.mesh
from gamenav import NavMesh

# six triangles of a 10 x 10 square (some with a 180-degree vertex on a side), each with its own
# copies of the corners, some 1e-8 off (the tolerance: 1e-9 of the extent)
_COPIES = np.array([
    (-2.3125815796967032e-08, 9.999999998111027), (-1.3796971614514032e-08, 3.1170339846316937),
    (-9.57229228096346e-09, 8.936001849299788e-09), (3.368397555938123, 7.596940436302843),
    (1.5004805989161811, 8.929537197485239), (-8.368950200968434e-09, 9.999999996984535),
    (3.3683975499930368, 7.596940424961363), (3.442750473055567, 9.385491593642882),
    (-8.614416732885683e-09, 9.999999977586322), (2.6635098945839295, 9.524580926236325),
    (3.4427504894500465, 9.38549159004133), (10.0, 10.0), (9.999999986623052, 10.000000000001801),
    (3.4427504891889615, 9.385491598761778), (3.3683975463696507, 7.596940422380261),
    (7.203415364959216, 8.986616052416789), (10.000000006431787, 10.000000025380984),
    (5.826004553231456, 8.487490804004855), (3.368397554228039, 7.596940421238835),
    (10.0000000005459, -7.4449196712997625e-09), (10.000000004870962, 7.348192538972047),
    (10.000000013714324, -5.5334962262611175e-09), (3.368397549272032, 7.596940441759878),
    (-2.4038168695409636e-09, 5.3261279403613774e-09)])
_POLYGONS = [[0, 1, 2, 3, 4], [5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15], [16, 17, 18, 19, 20], [21, 22, 23]]


def test_from_mesh_ends_on_copies_merged_in_chains(monkeypatch: pytest.MonkeyPatch) -> None:
    """(A mend of 170d3e5, whose crack check ran until it found nothing.) Copies of corners about
    the tolerance apart merge in chains, each pass of the check moving corners that the next finds
    near others: on these six triangles the passes never ended (``from_mesh`` hung, the mesh
    growing by a few triangles a pass). A pass is kept only while it closes cracks."""
    stitch = gamenav.navmesh.mesh._stitch
    passes: list[int] = []

    def counted(mesh: NavMesh) -> Any:
        passes.append(1)
        if len(passes) > 50:
            raise RuntimeError("from_mesh does not end")
        return stitch(mesh)

    monkeypatch.setattr(gamenav.navmesh.mesh, "_stitch", counted)
    mesh = NavMesh.from_mesh(_COPIES, _POLYGONS)
    assert len(passes) <= 4 and len(mesh) > 0
    tris = mesh.vertices[mesh.triangles[mesh.alive]]
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    area = 0.5 * ((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))
    assert (area > 0).all() and area.sum() <= 100.0 + 1e-6
