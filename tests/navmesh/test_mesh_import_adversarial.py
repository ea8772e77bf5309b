"""NavMesh.from_mesh with near-degenerate exports: corners a rounding error apart, slivers, T-junctions."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

import gamenav
from gamenav import NavMesh, PathStatus
from gamenav.io import read_mesh


def _area(mesh: NavMesh) -> float:
    """The walkable area of ``mesh`` (its live triangles)."""
    p = mesh.vertices[mesh.triangles[mesh.alive]]
    d1, d2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]
    return float(np.abs(d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]).sum() / 2)


def _union(verts: np.ndarray, polygons: list[list[int]]) -> shapely.Geometry:
    return shapely.union_all([shapely.Polygon(verts[p]) for p in polygons])


@pytest.mark.parametrize("gap", [1e-13, 1e-15, float(np.spacing(1.0)), 1e-12, 1e-10])
@pytest.mark.parametrize("clockwise", [False, True])
@pytest.mark.parametrize("start", [0, 1, 2, 3, 4])
def test_a_polygon_with_a_corner_copy_a_rounding_error_away_keeps_its_area(
        gap: float, clockwise: bool, start: int) -> None:
    # a 2 x 1 rectangle of two unit squares; the right one holds a 180-degree vertex (1 + gap, 0)
    # beside its corner (1, 0): it lost half its area (NO_PATH across the rectangle)
    verts = np.array([(0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1), (1 + gap, 0)], float)
    ring = [1, 6, 2, 3, 4]
    ring = ring[start:] + ring[:start]
    right = ring[::-1] if clockwise else ring
    mesh = NavMesh.from_mesh(verts, [[0, 1, 4, 5], right])
    assert _area(mesh) == pytest.approx(2.0, abs=1e-9)
    assert (mesh.locate([(0.5, 0.5), (1.5, 0.2), (1.5, 0.8), (1.01, 0.99), (1.99, 0.01)]) >= 0).all()
    assert len(set(mesh.islands.tolist())) == 1
    path = gamenav.find_path(mesh, (0.5, 0.5), (1.5, 0.8))
    assert path.status is PathStatus.FOUND and path.cost == pytest.approx(np.hypot(1.0, 0.3))


@pytest.mark.parametrize("gap", [1e-13, 1e-15, 1e-12])
@pytest.mark.parametrize("clockwise", [False, True])
@pytest.mark.parametrize("start", range(8))
def test_a_polygon_whose_corners_all_have_copies_a_rounding_error_away_keeps_its_area(
        gap: float, clockwise: bool, start: int) -> None:
    # a unit square whose every corner has a 180-degree vertex `gap` along its edge: no ear
    # could be clipped leaving a rest with area, and the whole square was dropped (or all of it
    # but one triangle once the square's neighbours were stitched)
    corners = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], float)
    verts = [tuple(p) for p in corners] + [tuple(corners[k] + gap * (corners[(k + 1) % 4] - corners[k]))
                                           for k in range(4)]
    ring = [0, 4, 1, 5, 2, 6, 3, 7]
    ring = ring[start:] + ring[:start]
    # a neighbour on the left, with its own copy of the square's left side
    verts += [(-1, 0), (0, 0), (0, 1), (-1, 1)]
    mesh = NavMesh.from_mesh(np.array(verts), [ring[::-1] if clockwise else ring, [8, 9, 10, 11]])
    assert _area(mesh) == pytest.approx(2.0, abs=1e-9)
    assert (mesh.locate([(0.5, 0.5), (0.01, 0.99), (0.99, 0.01), (0.99, 0.99), (0.01, 0.01)]) >= 0).all()
    assert len(set(mesh.islands.tolist())) == 1
    path = gamenav.find_path(mesh, (-0.5, 0.5), (0.9, 0.9))
    assert path.status is PathStatus.FOUND and path.cost == pytest.approx(np.hypot(1.4, 0.4))


@pytest.mark.parametrize("gap", [1e-15, 1e-13, 5e-13])
@pytest.mark.parametrize("angle", [k * np.pi / 4 for k in range(8)] + [0.3, 2.8, 5.467])
@pytest.mark.parametrize("after", [False, True])
def test_a_corner_copy_a_rounding_error_away_in_any_direction_is_convex(
        gap: float, angle: float, after: bool, tmp_path) -> None:
    # the corner (1, 1) of a unit square with a copy `gap` away, in a direction that makes a tiny
    # zig-zag: no turn beyond the rounding tolerance, yet the angles there summed to 0 or 2 turns
    # ("must be convex, got a ring that turns 0 times around"): the mesh (and its file) refused
    copy = (1 + gap * np.cos(angle), 1 + gap * np.sin(angle))
    verts = np.array([(0, 0), (1, 0), (1, 1), (0, 1), copy, (2, 0), (2, 1)], float)
    ring = [0, 1, 2, 4, 3] if after else [0, 1, 4, 2, 3]
    mesh = NavMesh.from_mesh(verts, [ring, [1, 5, 6, 2]])
    assert _area(mesh) == pytest.approx(2.0, abs=1e-9)
    assert len(set(mesh.islands.tolist())) == 1
    assert gamenav.find_path(mesh, (0.5, 0.9), (1.5, 0.9)).status is PathStatus.FOUND
    lines = ["mesh", "3", "7 2", *(f"{x!r} {y!r}" for x, y in verts.tolist()),
             "1 5 " + " ".join(str(i + 1) for i in ring) + " 0 0 0 0 0", "1 4 2 6 7 3 0 0 0 0"]
    (tmp_path / "m.mesh").write_text("\n".join(lines) + "\n")
    data = read_mesh(tmp_path / "m.mesh")
    assert [p.tolist() for p in data.polygons] == [ring, [1, 5, 6, 2]]


@pytest.mark.parametrize("width", [1e-11, 3e-12])
def test_a_thin_rectangle_is_convex(width: float, tmp_path) -> None:
    # a strip narrower than 1e-9 of its length, with area: its short edges turn by more than
    # the rounding, and are no corner's copies (the star check left them out: "turns 0 times")
    verts = np.array([(0, 0), (1, 0), (1, 1), (0, 1), (0, 1 + width), (1, 1 + width)], float)
    mesh = NavMesh.from_mesh(verts, [[0, 1, 2, 3], [3, 2, 5, 4]])
    assert _area(mesh) == pytest.approx(1.0, abs=1e-9)
    lines = ["mesh", "3", "6 2", *(f"{x!r} {y!r}" for x, y in verts.tolist()),
             "1 4 1 2 3 4 0 0 0 0", "1 4 4 3 6 5 0 0 0 0"]
    (tmp_path / "m.mesh").write_text("\n".join(lines) + "\n")
    assert [p.tolist() for p in read_mesh(tmp_path / "m.mesh").polygons] == [[0, 1, 2, 3], [3, 2, 5, 4]]


@pytest.mark.parametrize("clockwise", [False, True])
@pytest.mark.parametrize("start", range(9))
def test_a_polygon_with_copies_at_both_ends_of_a_straight_side_is_one_island(clockwise: bool, start: int) -> None:
    # a triangle whose long side holds 180-degree vertices (a rounding error off its line) and,
    # at both its ends, a corner's copy 1e-12 away: no ear to clip; the fan was cut from the
    # first corner, a copy, along the side: merged with its corner, its thin triangles folded
    # (2 islands, NO_PATH inside one convex polygon)
    verts = np.array([(47.73792660807354, 25.39339041208778), (34.50083298787736, 27.217101787931426),
                      (34.50083298787604, 27.217101787931608), (36.69742533442137, 30.502461265352967),
                      (39.939491895468656, 35.351496690391855), (50.779021552040085, 51.563768186290886),
                      (57.78116469885942, 62.03660689295584), (57.781164698859314, 62.03660689295484),
                      (69.5103192343459, 37.38620607514251)])
    ring = list(range(9))
    ring = ring[start:] + ring[:start]
    mesh = NavMesh.from_mesh(verts, [ring[::-1] if clockwise else ring])
    assert _area(mesh) == pytest.approx(shapely.Polygon(verts).area, rel=1e-12)
    assert len(set(mesh.islands.tolist())) == 1
    a, b = (40.0, 34.0), (60.0, 40.0)
    path = gamenav.find_path(mesh, a, b, exact=True)
    assert path.status is PathStatus.FOUND and path.cost == pytest.approx(np.hypot(20.0, 6.0))


@pytest.mark.parametrize("origin", [1869.1333659165825, -1e6 - 0.3, 3e9 + 0.7])
@pytest.mark.parametrize("slope", [0.35, 0.61, 0.9])
def test_a_small_polygon_far_from_the_origin_with_180_degree_corners_is_convex(
        origin: float, slope: float, tmp_path) -> None:
    # a triangle 1e-6 of its distance from the origin wide, its long side holding points
    # computed on it (an exporter's T-junction vertices): they lie float steps off the line,
    # which the convexity check took for reflex corners (the same triangle at the origin: fine)
    size = 1e-6 * abs(origin)
    a, b, c = np.array([origin, -origin]), np.array([origin + size, -origin]), \
        np.array([origin + size, -origin + slope * size])
    verts = np.array([a, b, c, *(c + t * (a - c) for t in (0.3, 0.55, 0.8))])
    mesh = NavMesh.from_mesh(verts, [[0, 1, 2, 3, 4, 5]])
    assert _area(mesh) == pytest.approx(0.5 * slope * size * size, rel=1e-6)
    assert len(set(mesh.islands.tolist())) == 1
    lines = ["mesh", "3", "6 1", *(f"{x!r} {y!r}" for x, y in verts.tolist()), "1 6 1 2 3 4 5 6 0 0 0 0 0 0"]
    (tmp_path / "m.mesh").write_text("\n".join(lines) + "\n")
    assert [p.tolist() for p in read_mesh(tmp_path / "m.mesh").polygons] == [[0, 1, 2, 3, 4, 5]]


def test_a_sliver_turned_over_by_merging_copies_is_no_island() -> None:
    # two unit squares as triangles, each with its own copy of the corner (1, 0), 6.6e-13 apart;
    # the right one's fan from it holds a sliver along the bottom, through a 180-degree vertex at
    # (1.5, -1e-13): merged into the left square's copy, the sliver turned over, was taken the
    # other way round and lay over its neighbour: an island of its own (points there: NO_PATH)
    verts = np.array([(0, 0), (1.0000000000004736, -8.692750222482776e-13), (1, 1), (0, 1),
                      (0.9999999999997892, -2.0898691150838446e-13), (1.4999999999998948, -1.0449345575419223e-13),
                      (2, 0), (2, 1), (1, 1)])
    mesh = NavMesh.from_mesh(verts, np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7], [4, 7, 8]]))
    assert _area(mesh) == pytest.approx(2.0, abs=1e-9)
    assert len(set(mesh.islands.tolist())) == 1
    assert (mesh.neighbours >= 0).any(axis=1).all()


def test_a_t_junction_left_by_a_sliver_turned_over_is_split_too() -> None:
    # three unit squares as triangles, each with its own copies of the corners, up to 1.2e-12
    # apart; the top one's bottom side holds a 180-degree vertex (3.5, 2 + 4e-13) in a sliver of
    # its fan: merging copies turned it over and it went, leaving that vertex in the middle of
    # the top square's new side (a T-junction, found by no second look): a crack, and the exact
    # path from the bottom square to the top one went round its corner (3, 2)
    verts = np.array([
        (1.9999999999995262, 0.9999999999993926), (3.0, 1.0), (2.99999999999932, 1.9999999999996176),
        (2.0000000000004854, 1.9999999999992775), (3.0, 1.0), (3.9999999999997558, 0.9999999999998952),
        (4.0, 2.0), (2.9999999999999596, 2.0000000000008584), (3.000000000000297, 2.0000000000008407),
        (4.0, 2.0), (4.000000000000485, 2.999999999999961), (3.0000000000007354, 2.9999999999995177),
        (3.5000000000001483, 2.00000000000042)])
    tris = np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7], [8, 12, 9], [8, 9, 10], [8, 10, 11]])
    mesh = NavMesh.from_mesh(verts, tris)
    assert _area(mesh) == pytest.approx(3.0, abs=1e-9)
    assert not any(abs(mesh.vertices[e, 1] - 2).max() < 1e-9 and mesh.vertices[e, 0].min() > 2.5
                   for e in mesh._border_edges)  # no crack along y = 2 between the right squares
    a, b = (3.9, 1.1), (3.1, 2.9)
    path = gamenav.find_path(mesh, a, b, exact=True)
    assert path.status is PathStatus.FOUND and path.cost == pytest.approx(np.hypot(0.8, 1.8))
