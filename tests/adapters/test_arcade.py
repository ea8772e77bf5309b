"""arcade adapter: Tiled maps and wall sprites -> grids (arcade's own placement and collision as
oracles), Tiled polygons -> navmesh, the sprite follower, and debug drawing in a headless window."""

from __future__ import annotations

import math
import numpy as np
import pytest

import arcade  # noqa: E402  (after ARCADE_HEADLESS is set by conftest)

import gamenav  # noqa: E402
from gamenav.adapters.arcade import (PathFollower, draw_expansions, draw_grid, draw_navmesh,  # noqa: E402
                                     draw_path, grid_from_sprites, grid_from_tilemap, navmesh_from_tilemap)


@pytest.fixture(scope="module")
def window():
    win = arcade.Window(200, 160, "gamenav tests", visible=False)
    yield win
    win.close()


@pytest.fixture(scope="module")
def tile_map(window, data_dir):
    return arcade.load_tilemap(data_dir / "tiled" / "tiny.json")


# -- tile maps ----------------------------------------------------------------------------
def test_wall_layer_blocks_exactly_the_cells_of_arcades_wall_sprites(tile_map) -> None:
    grid = grid_from_tilemap(tile_map, "walls")
    assert grid.shape == (4, 6) and grid.cell_size == 16 and grid.y_up
    sprite_cells = {tuple(grid.world_to_cell(s.position).tolist()) for s in tile_map.sprite_lists["walls"]}
    blocked = {(int(x), int(y)) for y, x in np.argwhere(~grid.passable)}
    assert blocked == sprite_cells == {(2, 0), (2, 1), (4, 1), (4, 2), (0, 3)}


def test_floor_layer_as_walkable_tiles(tile_map) -> None:
    walls = grid_from_tilemap(tile_map, "walls")
    floor = grid_from_tilemap(tile_map, "floor", walls=False)
    assert np.array_equal(floor.passable, walls.passable)


def test_scaled_map_scales_cells(data_dir, window) -> None:
    scaled = arcade.load_tilemap(data_dir / "tiled" / "tiny.json", scaling=2.0)
    grid = grid_from_tilemap(scaled, "walls")
    assert grid.cell_size == 32
    for sprite in scaled.sprite_lists["walls"]:
        x, y = grid.world_to_cell(sprite.position).tolist()
        assert not grid.passable[y, x]


@pytest.mark.parametrize("orientation", ["isometric", "staggered", "hexagonal"])
def test_a_map_that_is_not_orthogonal_is_refused(data_dir, window, orientation) -> None:
    """A hexagonal (or isometric, staggered) map was read as if its tiles formed a square grid."""
    fresh = arcade.load_tilemap(data_dir / "tiled" / "tiny.json")
    fresh.tiled_map.orientation = orientation
    for read in (lambda: grid_from_tilemap(fresh, "walls"), lambda: navmesh_from_tilemap(fresh, "walkable")):
        with pytest.raises(gamenav.InvalidInputError,
                           match=rf"tile_map must be an orthogonal map, got '{orientation}' \(.*tiny\.json\)"):
            read()


def test_unknown_layer_names_the_layers(tile_map) -> None:
    with pytest.raises(gamenav.InvalidInputError, match=r"tile layer 'water' not found; .*\['floor', 'walls'\]"):
        grid_from_tilemap(tile_map, "water")


@pytest.mark.parametrize(("edit", "got"), [
    (lambda rows: rows[:-1], r"got 3 rows of \[6\] entries"),
    (lambda rows: rows + [rows[0]], r"got 5 rows of \[6\] entries"),
    (lambda rows: [rows[0][:-1]] + rows[1:], r"got 4 rows of \[5, 6\] entries"),
    (lambda rows: [r + [0] for r in rows], r"got 4 rows of \[7\] entries"),
    (lambda rows: [[float(v) + 0.5 for v in r] for r in rows], "got entries of dtype float64"),
    (lambda rows: [v for r in rows for v in r][:-2], r"got shape \(22,\)"),
])
def test_wrong_length_layer_data_is_a_map_format_error(data_dir, window, edit, got) -> None:
    fresh = arcade.load_tilemap(data_dir / "tiled" / "tiny.json")
    (layer,) = [la for la in fresh.tiled_map.layers if la.name == "walls"]
    layer.data = edit([list(r) for r in layer.data])
    with pytest.raises(gamenav.MapFormatError,
                       match=r"tiny\.json: tile layer 'walls' must hold 4 rows of 6 integer tile ids "
                             rf"\(the map's size\), {got}"):
        grid_from_tilemap(fresh, "walls")


def test_tilemap_arguments_are_checked(tile_map) -> None:
    with pytest.raises(gamenav.InvalidInputError, match=r"layer must be a layer name \(str\), got array"):
        grid_from_tilemap(tile_map, np.array([1, 2]))
    with pytest.raises(gamenav.InvalidInputError, match="walls must be a bool, got 'no'"):
        grid_from_tilemap(tile_map, "walls", walls="no")
    with pytest.raises(gamenav.InvalidInputError, match="walkable must be a bool, got 'yes'"):
        navmesh_from_tilemap(tile_map, "obstacles", walkable="yes")
    with pytest.raises(gamenav.InvalidInputError, match=r"layer must be a layer name \(str\), got \['obstacles'\]"):
        navmesh_from_tilemap(tile_map, ["obstacles"])
    with pytest.raises(gamenav.InvalidInputError, match="tile_map must be an arcade.TileMap, got int"):
        navmesh_from_tilemap(5, "obstacles")


def test_flat_layer_data_of_the_right_length_is_accepted(data_dir, window, tile_map) -> None:
    fresh = arcade.load_tilemap(data_dir / "tiled" / "tiny.json")
    (layer,) = [la for la in fresh.tiled_map.layers if la.name == "walls"]
    layer.data = [v for r in layer.data for v in r]
    np.testing.assert_array_equal(grid_from_tilemap(fresh, "walls").passable,
                                  grid_from_tilemap(tile_map, "walls").passable)


def test_path_on_a_tilemap_grid_avoids_the_walls(tile_map) -> None:
    grid = grid_from_tilemap(tile_map, "walls")
    path = gamenav.find_path(grid, (0, 0), (5, 0))
    assert path.found and grid.passable[path.cells[:, 1], path.cells[:, 0]].all()
    assert np.allclose(path.points[0], (8, 56)) and np.allclose(path.points[-1], (88, 56))


def test_navmesh_from_object_layer(tile_map) -> None:
    mesh = navmesh_from_tilemap(tile_map, "obstacles")
    inside_rock, inside_wall, free = (48, 50), (20, 16), (80, 10)
    tri = mesh.locate([inside_rock, inside_wall, free])
    assert tri[0] == -1 and tri[1] == -1 and tri[2] >= 0
    path = gamenav.find_path(mesh, (4.0, 4.0), (90.0, 60.0))
    assert path.found


# -- sprites ------------------------------------------------------------------------------
@pytest.mark.parametrize("angle", [0.0, 30.0, 45.0])
def test_sprite_walls_match_arcade_collisions(window, angle: float) -> None:
    walls = arcade.SpriteList()
    walls.append(arcade.SpriteSolidColor(50, 14, center_x=60, center_y=70, angle=angle))
    walls.append(arcade.SpriteSolidColor(10, 60, center_x=150, center_y=50))
    cs = 10.0
    grid = grid_from_sprites(walls, size=(200, 120), cell_size=cs)
    assert grid.shape == (12, 20)
    for y in range(grid.height):
        for x in range(grid.width):
            cx, cy = grid.cell_to_world((x, y))
            probe = arcade.SpriteSolidColor(cs - 0.05, cs - 0.05, center_x=cx, center_y=cy)  # no edge contact
            hit = bool(arcade.check_for_collision_with_list(probe, walls))
            assert grid.passable[y, x] == (not hit), (x, y)


def test_sprites_touching_cell_edges_block_nothing_beyond(window) -> None:
    walls = arcade.SpriteList()
    walls.append(arcade.SpriteSolidColor(20, 20, center_x=30, center_y=30))  # exactly cells (1..2, 1..2)
    grid = grid_from_sprites(walls, size=(60, 60), cell_size=10)
    assert (~grid.passable).sum() == 4


def test_sprite_grid_validates_size(window) -> None:
    with pytest.raises(gamenav.InvalidInputError, match="cell_size must be a finite number > 0, got 0"):
        grid_from_sprites([], size=(10, 10), cell_size=0)
    with pytest.raises(gamenav.InvalidInputError, match=r"size must be a \(width, height\) pair"):
        grid_from_sprites([], size=1.0, cell_size=8)  # type: ignore[arg-type]
    with pytest.raises(gamenav.InvalidInputError, match=r"size must be a \(width, height\) pair"):
        grid_from_sprites([], size=(), cell_size=8)
    with pytest.raises(gamenav.InvalidInputError, match=r"more than \d+ cells"):
        grid_from_sprites([], size=(1e12, 1e12), cell_size=8)
    with pytest.raises(gamenav.InvalidInputError, match="origin must be a finite"):
        grid_from_sprites([], size=(10, 10), cell_size=8, origin=(math.nan, 0))


# -- following ----------------------------------------------------------------------------
def test_follower_reaches_its_goal_through_a_queue(window) -> None:
    grid = gamenav.TileGrid.from_strings(["........", ".######.", "........", "........"],
                                         cell_size=16, y_up=True)
    sprite = arcade.SpriteSolidColor(8, 8, center_x=8, center_y=56)
    queue = gamenav.PathQueue(budget_ms=None, max_expansions=4)
    follower = PathFollower(sprite, grid, speed=80, queue=queue)
    follower.move_to((120.0, 40.0))
    assert not follower.arrived
    for _ in range(240):
        queue.update()
        follower.update(1 / 30)
        x, y = grid.world_to_cell(sprite.position).tolist()
        assert grid.passable[y, x]
    assert follower.arrived and not follower.failed
    assert np.hypot(sprite.center_x - 120, sprite.center_y - 40) < 4


def test_follower_without_queue_and_unreachable_goal(window) -> None:
    grid = gamenav.TileGrid.from_strings(["..#..", "..#..", "..#.."], cell_size=10, y_up=True)
    sprite = arcade.SpriteSolidColor(4, 4, center_x=5, center_y=5)
    follower = PathFollower(sprite, grid, speed=50)
    follower.move_to((45.0, 5.0))
    assert follower.failed and not follower.arrived


# -- drawing ------------------------------------------------------------------------------
def _pixels() -> np.ndarray:
    return np.asarray(arcade.get_image().convert("RGB"), dtype=np.int64)


def test_debug_drawing_changes_pixels(window, tile_map) -> None:
    grid = grid_from_tilemap(tile_map, "walls")
    mesh = navmesh_from_tilemap(tile_map, "obstacles")
    field = gamenav.distance_field(grid, (0, 0))
    path = gamenav.find_path(mesh, (4.0, 4.0), (90.0, 60.0))
    drawings = [
        lambda: draw_grid(grid),
        lambda: draw_expansions(grid, field),
        lambda: draw_expansions(grid, np.isfinite(field)),
        lambda: draw_path(gamenav.find_path(grid, (0, 0), (5, 0)), points=True),
        lambda: draw_navmesh(mesh, path=path),
    ]
    for draw in drawings:
        window.clear(color=(0, 0, 0, 255))
        before = _pixels()
        draw()
        assert (np.abs(_pixels() - before).sum(axis=2) > 0).sum() > 20


def test_drawing_checks_shapes(window) -> None:
    grid = gamenav.TileGrid(np.ones((3, 3), bool))
    with pytest.raises(gamenav.InvalidInputError, match=r"values must have the grid's shape \(3, 3\), got \(2, 2\)"):
        draw_expansions(grid, np.zeros((2, 2)))
    with pytest.raises(gamenav.InvalidInputError, match=r"path points must have shape \(n, 2\), got \(3,\)"):
        draw_path(np.zeros(3))


def test_a_navmesh_where_a_grid_goes_and_other_wrong_objects_are_named(window) -> None:
    grid = gamenav.TileGrid(np.ones((3, 3), bool))
    mesh = gamenav.NavMesh.from_grid(grid)
    path = gamenav.find_path(grid, (0, 0), (2, 2))
    calls = [  # each raised an AttributeError, TypeError or ValueError from inside the adapter
        (lambda: draw_grid(mesh), "grid must be a gamenav.TileGrid, got NavMesh"),
        (lambda: draw_expansions(mesh, np.zeros((3, 3))), "grid must be a gamenav.TileGrid, got NavMesh"),
        (lambda: draw_navmesh(grid), "mesh must be a gamenav.NavMesh, got TileGrid"),
        (lambda: draw_navmesh(mesh, path=path.points), "path must be a gamenav.Path, got ndarray"),
        (lambda: draw_navmesh(mesh, highlight="all"), "highlight must be triangle ids"),
        (lambda: draw_path(grid),
         r"path must be a gamenav.Path or an \(n, 2\) array of \(x, y\) numbers, got TileGrid"),
        (lambda: draw_path([("a", "b")]), "path must be a gamenav.Path or an"),
        (lambda: grid_from_sprites(mesh, size=(3, 3), cell_size=1), "sprites must be an iterable of arcade sprites"),
        (lambda: grid_from_sprites([(0, 0, 1, 1)], size=(3, 3), cell_size=1),
         "each wall sprite must be an arcade.BasicSprite, got tuple"),
        (lambda: PathFollower((0.5, 0.5), grid, speed=1), "sprite must be an arcade.BasicSprite, got tuple"),
    ]
    for call, match in calls:
        with pytest.raises(gamenav.InvalidInputError, match=match):
            call()




def test_navmesh_drawing_of_an_edited_mesh_uses_triangle_ids(window, monkeypatch) -> None:
    """Corridor ids and highlighted ids name rows of ``mesh.triangles`` (dead rows included):
    the portals drawn are the shared edges of consecutive corridor triangles."""
    from shapely.geometry import box

    mesh = gamenav.NavMesh.from_polygons(box(0, 0, 40, 30))
    changes: list = []
    mesh.subscribe(changes.append)
    mesh.add_obstacle(box(18, 5, 22, 25))
    mesh.add_obstacle(box(5, 12, 8, 18))  # kills triangles, adds new ids past the live count
    path = gamenav.find_path(mesh, (2.0, 15.0), (38.0, 15.0))
    assert path.corridor.max() >= int(np.count_nonzero(mesh.alive))  # an id beyond the live rows
    lines: list = []
    fills: list = []
    monkeypatch.setattr(arcade, "draw_lines", lambda pts, color, width=1: lines.append((list(pts), color)))
    create_fills = arcade.shape_list.create_triangles_filled_with_colors
    monkeypatch.setattr(arcade.shape_list, "create_triangles_filled_with_colors",
                        lambda pts, colors: fills.append(pts) or create_fills(pts, colors))
    added = changes[-1].added
    draw_navmesh(mesh, path=path, highlight=np.concatenate([added, changes[-1].removed]))
    tris, verts = np.asarray(mesh.triangles), np.asarray(mesh.vertices)
    expected = []
    for a, b in zip(path.corridor[:-1], path.corridor[1:], strict=True):
        shared = np.intersect1d(tris[a], tris[b])
        expected += [tuple(verts[shared[0]]), tuple(verts[shared[1]])]
    portals = [pts for pts, color in lines if color == (255, 200, 40, 220)]
    assert portals == [expected]
    filled = np.asarray(fills[0]).reshape(-1, 6)  # (one shape of all the highlighted triangles)
    assert len(fills) == 1 and len(filled) == len(added)  # removed (dead) triangles are not filled
    corners = {tuple(np.round(verts[tris[t]].ravel(), 9)) for t in added}
    assert {tuple(np.round(f, 9)) for f in filled} == corners


def _old_draw_grid(grid, line_color, blocked_color) -> None:
    """draw_grid as it was: every blocked cell a square point, then the lines (the reference picture)."""
    ys, xs = np.nonzero(~grid.passable)
    if blocked_color is not None and len(xs):
        arcade.draw_points(grid.cell_to_world(np.stack([xs, ys], axis=1)).tolist(), blocked_color,
                           size=grid.cell_size)
    if line_color is not None:
        draw_grid(grid, line_color=line_color, blocked_color=None)


@pytest.mark.parametrize(("cell_size", "origin", "y_up", "exact"), [
    (8.0, (0.0, 0.0), True, True), (8.0, (0.0, 0.0), False, True), (9.0, (3.0, 5.0), False, True),
    (1.0, (17.0, 2.0), True, True), (7.5, (0.0, 11.0), True, False), (13.3, (-7.7, 20.5), False, False),
    (2.5, (3.25, -4.0), True, False), (0.7, (20.5, 3.25), False, False),
])
def test_draw_grid_texture_paints_what_the_per_cell_squares_painted(window, cell_size, origin, y_up,
                                                                    exact) -> None:
    """draw_grid drew every blocked cell as its own square (1.1 s a frame on a 1550 x 1550 map); it
    now draws one cached texture, one texel per cell, with pixelated sampling. The picture is the
    same: exactly for whole cells on whole pixels; else wherever a pixel's centre is 0.5 px or more
    from a cell edge (nearer, the GPU's sub-pixel rules pick the cell, for the squares too)."""
    rng = np.random.default_rng(5)
    grid = gamenav.TileGrid(rng.random((9, 11)) < 0.6, cell_size=cell_size, origin=origin, y_up=y_up)
    h, w = _pixels().shape[:2]
    xs, ys = np.arange(w) + 0.5, h - np.arange(h) - 0.5  # pixel centres in world units (rows from the top)

    def far_from_edges(centres: np.ndarray, start: float) -> np.ndarray:
        return np.abs((centres - start) / cell_size - np.round((centres - start) / cell_size)) * cell_size >= 0.5

    compared = far_from_edges(ys, origin[1])[:, None] & far_from_edges(xs, origin[0])[None, :]
    colors = [(220, 40, 40, 60), (220, 40, 40, 60), (30, 200, 90, 255), (30, 200, 90, 255)]
    for step, color in enumerate(colors):
        if step == 1:  # an edit after the picture was made
            edit = np.zeros(grid.shape, bool)
            edit[2:6, 3:5] = True
            grid.set_walkable(edit, False)
            grid.set_walkable((0, 0), True)
        pictures = []
        for draw in (_old_draw_grid, lambda g, lc, bc: draw_grid(g, line_color=lc, blocked_color=bc)):
            window.clear(color=(10, 20, 30, 255))
            draw(grid, (255, 255, 255, 40), color)
            pictures.append(_pixels())
        old, new = pictures
        assert np.array_equal(old[compared], new[compared]), (step, int((old != new).any(axis=2).sum()))
        if exact:
            assert np.array_equal(old, new)
        assert (np.abs(new - (10, 20, 30)).sum(axis=2) > 0).sum() > 20  # the picture is not empty


def test_draw_grid_repaints_its_picture_only_when_the_grid_or_the_colour_changes(window, monkeypatch) -> None:
    """The blocked cells' picture is made once per grid and repainted only after an edit or with
    another colour (it was rebuilt from every blocked cell on every call)."""
    from gamenav.adapters import arcade as adapter

    paints: list[int] = []
    paint = adapter._CellPicture.paint
    monkeypatch.setattr(adapter._CellPicture, "paint",
                        lambda self, grid, rgba: (paints.append(grid.version), paint(self, grid, rgba)))
    grid = gamenav.TileGrid(np.random.default_rng(2).random((6, 7)) < 0.5, cell_size=10, y_up=True)
    for _ in range(3):
        draw_grid(grid)
    texture = adapter._pictures.get(grid).texture
    assert len(paints) == 1
    grid.set_walkable((1, 1), not grid.passable[1, 1])
    draw_grid(grid)
    draw_grid(grid)
    draw_grid(grid, blocked_color=(0, 0, 255))
    draw_grid(grid, blocked_color=(0, 0, 255), line_color=None)
    assert len(paints) == 3 and adapter._pictures.get(grid).texture is texture  # updated in place
    window.clear(color=(0, 0, 0, 255))
    draw_grid(grid, blocked_color=(0, 0, 255, 255), line_color=None)
    blocked = np.asarray(arcade.get_image().convert("RGB"))[-60:, :70][5::10, 5::10]  # cell centres
    assert np.array_equal((blocked == (0, 0, 255)).all(axis=2), ~grid.passable)


def _old_draw_expansions(grid, values, alpha) -> None:
    """draw_expansions as it was: a square point per reached cell, 8 shades (the reference picture)."""
    arr = np.asarray(values)
    reached = arr if arr.dtype == np.bool_ else np.isfinite(arr)
    ys, xs = np.nonzero(reached)
    if len(xs) == 0:
        return
    centres = grid.cell_to_world(np.stack([xs, ys], axis=1))
    if arr.dtype == np.bool_:
        arcade.draw_points(centres.tolist(), (255, 220, 60, alpha), size=grid.cell_size)
        return
    v = arr[ys, xs]
    level = np.minimum((v / max(float(v.max()), 1e-9) * 8).astype(int), 7)
    for k in range(8):
        t = k / 7
        if (level == k).any():
            arcade.draw_points(centres[level == k].tolist(),
                               (int(255 - 120 * t), int(220 - 200 * t), int(60 + 160 * t), alpha), size=grid.cell_size)


@pytest.mark.parametrize(("cell_size", "origin", "y_up"), [(8.0, (0.0, 0.0), True), (9.0, (3.0, 5.0), False),
                                                           (1.0, (17.0, 2.0), True)])
def test_draw_expansions_texture_paints_what_the_per_cell_squares_painted(window, cell_size, origin, y_up) -> None:
    """draw_expansions drew a square per reached cell (10 s a frame on a 1550 x 1550 map, a demo
    overlay that froze the game); it now paints one texture per grid, a texel per cell: the
    same picture, pixel for pixel, for whole cells on whole pixels."""
    rng = np.random.default_rng(7)
    grid = gamenav.TileGrid(rng.random((9, 11)) < 0.8, cell_size=cell_size, origin=origin, y_up=y_up)
    field = gamenav.distance_field(grid, [(0, 0)] if grid.passable[0, 0] else np.argwhere(grid.passable)[:1, ::-1])
    field[3, 4] = -1.0  # a small negative value: the first shade, as the squares drew it
    zeros = np.where(np.isfinite(field), 0.0, np.nan)  # (field * 0: NaN where unreached, with a warning)
    for values, alpha in [(field, 110), (np.isfinite(field), 90), (zeros, 255), (np.full(grid.shape, np.inf), 50)]:
        pictures = []
        for draw in (_old_draw_expansions, lambda g, v, a: draw_expansions(g, v, alpha=a)):
            window.clear(color=(10, 20, 30, 255))
            draw(grid, values, alpha)
            pictures.append(_pixels())
        assert np.array_equal(*pictures), int((pictures[0] != pictures[1]).any(axis=2).sum())
    with pytest.raises(gamenav.InvalidInputError, match="alpha must be an int from 0 to 255, got 256"):
        draw_expansions(grid, field, alpha=256)
    with pytest.raises(gamenav.InvalidInputError, match="alpha must be an int from 0 to 255"):
        draw_expansions(grid, field, alpha=np.timedelta64(90))  # (an np.integer to numpy)


def test_draw_expansions_draws_no_point_per_cell(window, monkeypatch) -> None:
    """One texture, not a point per reached cell (1.2 million points a frame on maze-1550)."""
    grid = gamenav.TileGrid(np.ones((40, 50), bool))
    field = gamenav.distance_field(grid, [(0, 0)])

    def per_cell(*args, **kwargs) -> None:
        raise AssertionError("a point per cell")

    monkeypatch.setattr(arcade, "draw_points", per_cell)
    draw_expansions(grid, field)
    draw_expansions(grid, np.isfinite(field))


def test_draw_navmesh_keeps_its_edges_in_the_gpu_until_an_edit(window, monkeypatch) -> None:
    """The edges were found and sent again every frame (4 s a frame on a 424k-triangle mesh, the
    demo's navmesh overlay): now one line shape per mesh, made again only after an edit or with
    another colour, drawing the same pixels as the per-frame lines."""
    from shapely.geometry import box

    mesh = gamenav.NavMesh.from_polygons(box(3, 3, 190, 150), obstacles=[box(40, 40, 80, 90)])
    made: list[int] = []
    create = arcade.shape_list.create_lines
    monkeypatch.setattr(arcade.shape_list, "create_lines", lambda *args: (made.append(mesh.version), create(*args))[1])
    tris = np.asarray(mesh.triangles)
    edges = np.unique(np.sort(np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]), axis=1), axis=0)
    ends = np.asarray(mesh.vertices)[edges].reshape(-1, 2).tolist()
    pictures = []
    for draw in (lambda: arcade.draw_lines(ends, (120, 220, 255, 110), 1.0), lambda: draw_navmesh(mesh)):
        window.clear(color=(0, 0, 0, 255))
        draw()
        pictures.append(_pixels())
    assert np.array_equal(*pictures) and (pictures[1].sum(axis=2) > 0).sum() > 500
    for _ in range(3):
        draw_navmesh(mesh)
    assert made == [mesh.version]
    mesh.add_obstacle(box(120, 20, 130, 140))
    draw_navmesh(mesh)
    draw_navmesh(mesh, color=(255, 0, 0, 255))
    draw_navmesh(mesh, color=(255, 0, 0, 255))
    assert made == [mesh.version - 1, mesh.version, mesh.version]
    window.clear(color=(0, 0, 0, 255))
    draw_navmesh(mesh, color=(255, 0, 0, 255))
    lit = _pixels()
    assert ((lit == (255, 0, 0)).all(axis=2)).sum() > 500  # the edited mesh, in the new colour
