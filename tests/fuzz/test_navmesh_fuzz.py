"""NavMesh under hostile input: from_polygons / from_grid / from_mesh with random and
degenerate geometry, point queries, searches and pickling. Paths must lie on the mesh."""

from __future__ import annotations

import copy
import math
import pickle
from typing import Any

import numpy as np
import shapely  # type: ignore[import-untyped]
from hypothesis import given
from hypothesis import strategies as st

import gamenav
from tests.fuzz._harness import (
    short_repr,
    FuzzFailure,
    Reporter,
    attempt,
    check_mesh_path,
    contract,
    fuzz_settings,
    raised,
)
from tests.fuzz.conftest import Runner
from tests.fuzz.strategies import GridSpec, grid_specs, hostile, hostile_point, rings

_SQUARE = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)]


@st.composite
def polygon_inputs(draw: st.DrawFn) -> tuple[Any, Any, Any]:
    """``(walkable, obstacles, agent_radius)`` for ``NavMesh.from_polygons``."""
    shell = draw(st.one_of(st.just(_SQUARE), rings()))
    holes = draw(st.lists(st.one_of(rings(), st.just([(20.0, 20.0), (30.0, 20.0), (30.0, 30.0)]),
                                    st.just([(-5.0, -5.0), (15.0, -5.0), (15.0, 15.0), (-5.0, 15.0)])),
                          max_size=2))
    kind = draw(st.sampled_from(["rings", "rings", "ring", "shapely", "list_of_shapely", "odd"]))
    walkable: Any
    if kind == "rings":
        walkable = [shell, *holes]
    elif kind == "ring":
        walkable = shell
    elif kind in ("shapely", "list_of_shapely"):
        polygon = shapely.Polygon(shell if len(shell) >= 3 else _SQUARE)
        walkable = polygon if kind == "shapely" else [polygon, shapely.Point(1, 1)]
    else:
        walkable = draw(st.one_of(st.just([[(0, 0), (1, math.nan), (2, 2)]]),
                                  st.just([[[0, 0, 0], [1, 0, 0], [1, 1, 0]]]),
                                  st.just(np.array(_SQUARE)[None]), st.just([[]]),
                                  st.just([[(0, 0), (1, 0)]]), st.just([_SQUARE, [(1, 1)]])))
    obstacles = draw(st.one_of(st.just(()), st.lists(rings(5), max_size=2)))
    radius = draw(st.one_of(st.just(0.0), st.sampled_from([0.1, 1.0, 4.9, 100.0, 1e-12, 1e12])))
    return walkable, obstacles, radius


def _shell_of(walkable: Any) -> Any:
    """The shapely region the input's outer shell covers (None when not a plain ring list)."""
    if not isinstance(walkable, list) or not walkable or not isinstance(walkable[0], list):
        return None
    try:
        shell = shapely.make_valid(shapely.Polygon(walkable[0]))
    except Exception:  # noqa: BLE001  (odd input: no check)
        return None
    pts = np.asarray(walkable[0], dtype=float)
    extent = float(np.ptp(pts, axis=0).max()) if len(pts) else 0.0
    if not (1e-6 <= extent <= 1e13):
        return None
    return shell.buffer(1e-6 * extent)


def test_from_polygons(run_fuzz: Runner) -> None:
    """Random, self-intersecting, collinear, tiny, huge and NaN geometry; holes outside or
    around the shell never make the outside walkable."""
    def body(rep: Reporter) -> None:
        @fuzz_settings(700)
        @given(case=polygon_inputs())
        def prop(case: tuple[Any, Any, Any]) -> None:
            walkable, obstacles, radius = case
            rep.input("NavMesh.from_polygons", walkable=walkable, obstacles=obstacles,
                      agent_radius=radius)
            mesh = attempt(gamenav.NavMesh.from_polygons, walkable, obstacles=obstacles,
                           agent_radius=radius)
            if raised(mesh):
                return
            _check_mesh(mesh)
            shell = _shell_of(walkable)
            if shell is not None:
                centroids = mesh.vertices[mesh.triangles].mean(axis=1)
                outside = ~shapely.contains_xy(shell, centroids[:, 0], centroids[:, 1])
                if outside.any():
                    raise FuzzFailure(f"walkable triangle around {centroids[outside][0].tolist()} "
                                      "lies outside the shell")
            _probe(mesh)
        prop()
    run_fuzz(body)


def _check_mesh(mesh: gamenav.NavMesh) -> None:
    v, t = mesh.vertices, mesh.triangles
    if not np.isfinite(v).all() or t.min() < 0 or t.max() >= len(v) or len(t) == 0:
        raise FuzzFailure(f"malformed mesh {mesh!r}")
    if v.flags.writeable or t.flags.writeable:
        raise FuzzFailure("mesh arrays are writable")


def _probe(mesh: gamenav.NavMesh) -> None:
    """Each triangle's centroid is on the mesh; a path between two of them lies on the mesh."""
    centroids = mesh.vertices[mesh.triangles].mean(axis=1)
    located = mesh.locate(centroids)
    if (located < 0).any():
        bad = int(np.argmax(located < 0))
        raise FuzzFailure(f"the centroid {centroids[bad].tolist()} of triangle {bad} is not located "
                          f"on {mesh!r} (vertices {mesh.vertices[mesh.triangles[bad]].tolist()})")
    weighted = bool((mesh.area_costs != 1.0).any())
    for exact in (False, True):
        path = attempt(gamenav.find_path, mesh, centroids[0], centroids[-1], exact=exact)
        if exact and weighted:  # weighted-region exact paths are out of scope, by contract
            if not (raised(path) and isinstance(path.error, gamenav.UnsupportedOptionError)):
                raise FuzzFailure(f"exact=True on a mesh with area costs gave {path!r}")
            continue
        if raised(path):
            raise FuzzFailure(f"find_path between two centroids raised {path!r}")
        check_mesh_path(mesh, path)


def test_from_grid(run_fuzz: Runner) -> None:
    def body(rep: Reporter) -> None:
        @fuzz_settings(400)
        @given(spec=grid_specs(8), radius=st.sampled_from([0.0, 0.0, 0.1, 0.5, 3.0, 1e-12]))
        def prop(spec: GridSpec, radius: Any) -> None:
            grid = spec.build()
            rep.input("NavMesh.from_grid", grid=spec, agent_radius=radius)
            mesh = attempt(gamenav.NavMesh.from_grid, grid, agent_radius=radius)
            if raised(mesh):
                return
            _check_mesh(mesh)
            if radius == 0:
                ys, xs = np.nonzero(np.ones(grid.shape, bool))
                centres = grid.cell_to_world(np.stack([xs, ys], axis=1))
                on = mesh.locate(centres) >= 0
                if (on != grid.passable[ys, xs]).any():
                    k = int(np.argmax(on != grid.passable[ys, xs]))
                    raise FuzzFailure(f"cell {(int(xs[k]), int(ys[k]))} passable="
                                      f"{bool(grid.passable[ys[k], xs[k]])} but on the mesh={bool(on[k])}")
            _probe(mesh)
        prop()
    run_fuzz(body)


@st.composite
def mesh_inputs(draw: st.DrawFn) -> tuple[Any, Any]:
    """``(vertices, polygons)`` for ``NavMesh.from_mesh``: random, degenerate or hostile."""
    n = draw(st.integers(0, 8))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    vertices: Any = rng.random((n, 2)) * draw(st.sampled_from([1.0, 10.0, 1e-11, 1e9, 1e200]))
    if draw(st.integers(0, 6)) == 0:
        vertices = draw(st.one_of(st.just(np.full((n, 2), np.nan)), st.just(np.zeros((n, 3))),
                                  st.just([[0, 0], [1]]), hostile()))
    ids = st.integers(-2, n + 1)
    polygons: Any = draw(st.one_of(
        st.lists(st.lists(ids, min_size=3, max_size=3), max_size=4).map(
            lambda p: np.array(p, dtype=np.int64).reshape(-1, 3)),
        st.lists(st.lists(ids, min_size=0, max_size=6), max_size=4),
        st.lists(st.lists(st.integers(0, max(0, n - 1)), min_size=3, max_size=5), max_size=4),
        st.just(np.array([[0, 1, 2]], dtype=np.float64)), st.just([[0, 1, 2.5]]),
        st.just([[0, 1, 2**63]]), st.just(np.zeros((2, 4), np.int64)), hostile()))
    return vertices, polygons


def test_from_mesh(run_fuzz: Runner) -> None:
    def body(rep: Reporter) -> None:
        @fuzz_settings(600)
        @given(case=mesh_inputs())
        def prop(case: tuple[Any, Any]) -> None:
            vertices, polygons = case
            rep.input("NavMesh.from_mesh", vertices=vertices, polygons=polygons)
            mesh = attempt(gamenav.NavMesh.from_mesh, vertices, polygons)
            if raised(mesh):
                return
            _check_mesh(mesh)
            with contract("queries on an imported mesh"):
                mesh.locate(mesh.vertices)
                mesh.clamp(mesh.vertices + 1.0)
                mesh.raycast(mesh.vertices[0], mesh.vertices[-1])
                for exact in (False, True):
                    path = gamenav.find_path(mesh, mesh.vertices[0], mesh.vertices[-1],
                                             exact=exact, clamp=True, partial=True)
                    check_mesh_path(mesh, path)
        prop()
    run_fuzz(body)


def _fixed_meshes() -> list[tuple[str, gamenav.NavMesh]]:
    """Small meshes with islands, holes, pinch points, tiny and huge extents."""
    square = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)]
    meshes = [
        ("square with a pillar", gamenav.NavMesh.from_polygons(
            [square, [(4.0, 4.0), (6.0, 4.0), (6.0, 6.0), (4.0, 6.0)]])),
        ("two islands", gamenav.NavMesh.from_polygons(
            shapely.MultiPolygon([shapely.box(0, 0, 4, 10), shapely.box(6, 0, 10, 10)]))),
        ("grid with pinch points", gamenav.NavMesh.from_grid(
            gamenav.TileGrid.from_strings(["..#..", ".#.#.", "#...#", "....."]))),
        ("tiny", gamenav.NavMesh.from_polygons([[(x * 1e-11, y * 1e-11) for x, y in square]])),
        ("huge", gamenav.NavMesh.from_polygons([[(x * 1e9, y * 1e9) for x, y in square]])),
    ]
    return meshes


_MESH_OPTIONS = st.fixed_dictionaries({}, optional={
    "exact": st.booleans(), "clamp": st.booleans(), "partial": st.booleans()})


def test_navmesh_queries_and_paths(run_fuzz: Runner) -> None:
    """locate / nearest / clamp / raycast / find_path with hostile points and options."""
    def body(rep: Reporter) -> None:
        meshes = _fixed_meshes()

        @fuzz_settings(1300)
        @given(which=st.integers(0, len(meshes) - 1), data=st.data())
        def prop(which: int, data: st.DataObject) -> None:
            name, mesh = meshes[which]
            x0, y0, x1, y1 = mesh.bounds
            span = max(x1 - x0, y1 - y0)
            inside = st.tuples(st.floats(-0.2, 1.2), st.floats(-0.2, 1.2)).map(
                lambda f: (x0 + f[0] * span, y0 + f[1] * span))
            point = st.one_of(inside, inside, inside, hostile_point())
            op = data.draw(st.sampled_from(["locate", "nearest", "clamp", "raycast", "path", "path"]), "op")
            if op in ("locate", "nearest"):
                pts = data.draw(st.one_of(point, st.lists(point, max_size=4)), "points")
                rep.input(f"{name}.{op}", points=pts)
                out = attempt(getattr(mesh, op), pts)
                if not raised(out):
                    if op == "locate" and ((out < -1) | (out >= len(mesh))).any():
                        raise FuzzFailure(f"locate gave {out.tolist()}")
                    if op == "nearest" and (~np.isfinite(out).all() or (mesh.locate(out) < 0).any()):
                        raise FuzzFailure(f"nearest({pts!r}) gave {out.tolist()}, off the mesh")
            elif op == "clamp":
                pts = data.draw(st.one_of(point, st.lists(point, max_size=4)), "points")
                island = data.draw(st.one_of(st.none(), st.integers(-1, 3), hostile()), "island")
                rep.input(f"{name}.clamp", points=pts, island=island)
                out = attempt(mesh.clamp, pts, island)
                if not raised(out):
                    where, tri = out
                    if (tri < 0).any() or not np.isfinite(where).all():
                        raise FuzzFailure(f"clamp({pts!r}, island={island!r}) gave {where.tolist()}, "
                                          f"triangles {tri.tolist()}")
                    if island is not None and (mesh.islands[tri] != island).any():
                        raise FuzzFailure(f"clamp to island {island!r} gave islands "
                                          f"{mesh.islands[tri].tolist()}")
                    if (mesh.locate(where) < 0).any():
                        raise FuzzFailure(f"clamp({pts!r}) gave {where.tolist()}, off the mesh")
            elif op == "raycast":
                a, b = data.draw(point, "start"), data.draw(point, "end")
                rep.input(f"{name}.raycast", start=a, end=b)
                hit = attempt(mesh.raycast, a, b)
                if not raised(hit) and (not 0.0 <= hit.fraction <= 1.0 or not np.isfinite(hit.point).all()):
                    raise FuzzFailure(f"raycast gave {hit}")
            else:
                a, b = data.draw(point, "start"), data.draw(point, "goal")
                options = data.draw(_MESH_OPTIONS, "options")
                rep.input(f"{name}.find_path", start=a, goal=b, options=options)
                path = attempt(gamenav.find_path, mesh, a, b, **options)
                if raised(path):
                    return
                check_mesh_path(mesh, path)
                if path.status is gamenav.PathStatus.FOUND and not options.get("clamp") and not (
                        np.allclose(path.points[0], a) and np.allclose(path.points[-1], b)):
                    raise FuzzFailure(f"path {path.points.tolist()} does not join {a} and {b}")
                if path.found and options.get("exact") is True:
                    rough = gamenav.find_path(mesh, a, b, **{**options, "exact": False})
                    if rough.found and path.cost > rough.cost * (1 + 1e-9) + 1e-12:
                        raise FuzzFailure(f"exact path {path.cost} longer than the default {rough.cost}")
        prop()
    run_fuzz(body)


def test_navmesh_hostile_arguments(run_fuzz: Runner) -> None:
    """Wrong types and values for agent_radius, island and search options."""
    def body(rep: Reporter) -> None:
        meshes = _fixed_meshes()
        grid = gamenav.TileGrid.from_strings(["...", ".#.", "..."])

        @fuzz_settings(400)
        @given(which=st.integers(0, len(meshes) - 1), value=hostile(),
               op=st.sampled_from(["from_polygons", "walkable", "obstacles", "from_grid", "clamp",
                                   "find_path", "option"]),
               name=st.sampled_from(["exact", "clamp", "partial", "exactt", "diagonal", "weight",
                                     "smooth", "algorithm", "workspace"]))
        def prop(which: int, value: Any, op: str, name: str) -> None:
            label, mesh = meshes[which]
            rep.input(op, mesh=label, value=value, name=name)
            if op == "from_polygons":
                attempt(gamenav.NavMesh.from_polygons, [_SQUARE], agent_radius=value)
            elif op == "walkable":
                attempt(gamenav.NavMesh.from_polygons, value)
            elif op == "obstacles":
                attempt(gamenav.NavMesh.from_polygons, [_SQUARE], obstacles=value)
            elif op == "from_grid":
                attempt(gamenav.NavMesh.from_grid, grid, agent_radius=value)
            elif op == "clamp":
                out = attempt(mesh.clamp, (1.0, 1.0), value)
                if not raised(out) and (out[1] < 0).any():
                    raise FuzzFailure(f"clamp(island={value!r}) gave triangle {out[1].tolist()}")
            elif op == "find_path":
                attempt(gamenav.find_path, mesh, value, value)
            else:
                x0, y0, x1, y1 = mesh.bounds
                centre = ((x0 + x1) / 2, (y0 + y1) / 2)
                attempt(gamenav.find_path, mesh, centre, centre, **{name: value})
        prop()
    run_fuzz(body)


def test_navmesh_copies(run_fuzz: Runner) -> None:
    """pickle / deepcopy keep the arrays read-only and the answers the same."""
    def body(rep: Reporter) -> None:
        meshes = _fixed_meshes()

        @fuzz_settings(150)
        @given(which=st.integers(0, len(meshes) - 1), how=st.sampled_from(["pickle", "deepcopy", "copy"]),
               fa=st.tuples(st.floats(0.05, 0.95), st.floats(0.05, 0.95)),
               fb=st.tuples(st.floats(0.05, 0.95), st.floats(0.05, 0.95)))
        def prop(which: int, how: str, fa: tuple[float, float], fb: tuple[float, float]) -> None:
            name, mesh = meshes[which]
            rep.input(f"{name} {how}", fa=fa, fb=fb)
            dup = attempt({"pickle": lambda m: pickle.loads(pickle.dumps(m)), "deepcopy": copy.deepcopy,
                           "copy": copy.copy}[how], mesh)
            if raised(dup):
                return
            _check_mesh(dup)
            x0, y0, x1, y1 = mesh.bounds
            a = (x0 + fa[0] * (x1 - x0), y0 + fa[1] * (y1 - y0))
            b = (x0 + fb[0] * (x1 - x0), y0 + fb[1] * (y1 - y0))
            for exact in (False, True):
                p1 = attempt(gamenav.find_path, mesh, a, b, exact=exact, clamp=True)
                p2 = attempt(gamenav.find_path, dup, a, b, exact=exact, clamp=True)
                if raised(p1) or raised(p2):
                    if raised(p1) != raised(p2):
                        raise FuzzFailure(f"original {p1!r}, copy {p2!r}")
                    continue
                if p1.status is not p2.status or not np.array_equal(p1.points, p2.points):
                    raise FuzzFailure(f"{how}: original {p1}, copy {p2}")
        prop()
    run_fuzz(body)


def test_navmesh_edit_programs(run_fuzz: Runner) -> None:
    """add_obstacle / remove_obstacle / compact programs with random and hostile shapes and ids,
    on meshes from polygons (with a radius) and following grids; after every step the mesh's
    paths lie on it, ``alive`` and ``islands`` cover every triangle, and a path never crosses a
    current obstacle."""
    def body(rep: Reporter) -> None:
        obstacle = st.one_of(
            rings(6).map(lambda r: [(2.0 + 0.6 * x, 2.0 + 0.6 * y) for x, y in r]),
            st.tuples(st.floats(-2, 11), st.floats(-2, 11), st.floats(0.1, 6), st.floats(0.1, 6)).map(
                lambda b: shapely.box(b[0], b[1], b[0] + b[2], b[1] + b[3])),
            hostile(), hostile_point())
        step = st.one_of(
            st.tuples(st.just("add"), obstacle),
            st.tuples(st.just("remove"), st.one_of(st.integers(-2, 12), hostile())),
            st.tuples(st.just("compact"), st.none()),
            st.tuples(st.just("grid"), st.tuples(st.integers(0, 9), st.integers(0, 9), st.booleans())))

        @fuzz_settings(500)
        @given(kind=st.sampled_from(["polygons", "radius", "follow"]),
               program=st.lists(step, min_size=1, max_size=8),
               fa=st.tuples(st.floats(0.02, 0.98), st.floats(0.02, 0.98)),
               fb=st.tuples(st.floats(0.02, 0.98), st.floats(0.02, 0.98)))
        def prop(kind: str, program: list[tuple[str, Any]], fa: tuple[float, float],
                 fb: tuple[float, float]) -> None:
            rep.input("edit program", kind=kind, program=program, fa=fa, fb=fb)
            grid = gamenav.TileGrid.from_strings(["....#.....", "..........", "..##......",
                                                  "..........", "......#...", "..........",
                                                  ".....#....", "..........", "...#......",
                                                  ".........."])
            if kind == "follow":
                mesh = gamenav.NavMesh.from_grid(grid, agent_radius=0.2, follow=True)
            else:
                mesh = gamenav.NavMesh.from_polygons(
                    [_SQUARE, [(4.0, 4.0), (5.0, 4.0), (5.0, 5.0), (4.0, 5.0)]],
                    agent_radius=0.3 if kind == "radius" else 0.0)
            for op, arg in program:
                with contract(f"{op}({short_repr(arg)})"):
                    if op == "add":
                        mesh.add_obstacle(arg)
                    elif op == "remove":
                        mesh.remove_obstacle(arg)
                    elif op == "compact":
                        mesh.compact()
                    else:
                        x, y, walkable = arg
                        grid.set_walkable((x, y), walkable)
                n = len(mesh.triangles)
                if len(mesh.alive) != n or len(mesh.islands) != n:
                    raise FuzzFailure(f"after {op}: {n} triangles, alive {len(mesh.alive)}, "
                                      f"islands {len(mesh.islands)}")
                x0, y0, x1, y1 = mesh.bounds
                a = (x0 + fa[0] * (x1 - x0), y0 + fa[1] * (y1 - y0))
                b = (x0 + fb[0] * (x1 - x0), y0 + fb[1] * (y1 - y0))
                for exact in (False, True):
                    path = attempt(gamenav.find_path, mesh, a, b, exact=exact, clamp=True)
                    if raised(path):
                        continue
                    check_mesh_path(mesh, path)
                    if path.found and len(path.points) >= 2:
                        line = shapely.LineString(path.points)
                        for oid, shape in mesh.obstacles.items():  # as given (carved inflated)
                            inner = shapely.make_valid(shape).buffer(-1e-6)
                            if line.intersects(inner):
                                raise FuzzFailure(f"path {path.points.tolist()} crosses obstacle {oid}")
        prop()
    run_fuzz(body)
