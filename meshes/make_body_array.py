#!/usr/bin/env python3
"""Write multi-body hexahedral meshes (MSH 2.2 ASCII): a brick wall with a projectile, or a row of dominoes.

Used by applications/brick_wall and applications/dominoes. Standard library only:

    /usr/bin/python3 meshes/make_body_array.py --kind wall       # writes brick_wall.msh beside this file
    /usr/bin/python3 meshes/make_body_array.py --kind dominoes   # writes dominoes.msh beside this file
    /usr/bin/python3 meshes/make_body_array.py --kind wall --rows 3 --bricks 5 --output /tmp/w.msh

Every body is a structured block of hexahedra (gmsh element type 5) with its own nodes: the bodies
share no node and interact only through contact.

Boundary ids are given by the role of a face, the same on every body, so that a handful of contact
pairs (at most 8 per parameter file, one slave and one master id each) covers every interface:

    1  bottom face (-z in the body's own frame)       2  top face (+z)
    3  face toward -x                                 4  face toward +x
    5  face toward -y                                 6  face toward +y

The projectile of the wall has 1-4 as above but 7 on its back face (-y) and 8 on its front face
(+y, facing the wall), so that a pair "8 against 5" means "projectile against the wall's front".
For a tilted domino the ids are those of its own (untilted) frame.

Material ids (`--materials`): `per-body` (default) numbers the bodies 1, 2, 3, ... (wall: the bricks
row by row from the bottom, from -x to +x, then the projectile; dominoes: from -x to +x), so that
`bodies.csv` has one row per body; `per-kind` gives every brick (every domino) material id 1 and the
projectile 2. The solver's bodies are sets of material ids (materials whose cells share nodes form
one body), not connected sets of cells: with `per-kind` all the disjoint bricks of one material id
are ONE body, with one frame under large rotations (the wall's log then says "2 bodies") and one row
of `bodies.csv`. Use `per-body` unless that is what you want to test.

Kind `wall` (`--rows`, `--bricks`, `--brick L W H`, `--gap`, `--bed-gap`, `--cells nx ny nz`,
`--ends`, `--projectile-size`, `--projectile-cells`, `--projectile-distance`): a running-bond wall
along x, one brick thick along y (front face y = 0, back face y = W), standing on the floor z = 0.
Bricks in a row are `--gap` apart (head joints), rows are `--bed-gap` apart (bed joints) and the
bottom row is `--bed-gap` above the floor. Odd rows are shifted by half a brick pitch:
`--ends half` (default) closes them with two half bricks of length (L - gap)/2 so that both ends of
the wall are flush (a row of n bricks, then n - 1 bricks and two halves, ...); `--ends overhang`
gives every row n whole bricks and lets the odd rows overhang the +x end by half a pitch. The
projectile is a cube in front of the wall (y < 0), `--projectile-distance` from its front face,
centred on the wall's middle (half its length, half its height): with two rows it straddles the
bed joint, so it strikes bricks of both rows.

Kind `dominoes` (`--count`, `--domino T W H`, `--pitch`, `--tilt`, `--floor-gap`, `--cells`): N
thin plates T (along x) x W (along y) x H (along z), centres `--pitch` apart along x (domino 1 at
x = 0), bottoms `--floor-gap` above the floor. Domino 1 is turned by `--tilt` degrees about the
y axis through its bottom +x edge (the pivot), toward +x, so that it stands on that edge and falls
onto domino 2. The script checks that the tilted domino clears domino 2 and prints the pivot, the
clearance and the x beyond which the other dominoes lie (for an initial-velocity function).

Node ordering (gmsh's reference hexahedron, which deal.II's GridIn::read_msh converts to its own
numbering): nodes 0-3 the bottom face counter-clockwise seen from above (+z of the body's frame),
nodes 4-7 the top face in the same order, so that every hexahedron has a positive Jacobian (checked
below). Boundary quadrilaterals are listed counter-clockwise seen from outside the body (outward
normal, checked below). The rotations used are proper, so they keep both properties.
"""

import argparse
import math
import os

BOTTOM, TOP, MINUS_X, PLUS_X, MINUS_Y, PLUS_Y = 1, 2, 3, 4, 5, 6
PROJECTILE_BACK, PROJECTILE_FRONT = 7, 8


class Mesh:
    def __init__(self):
        self.nodes = []  # (x, y, z)
        self.hexes = []  # (material id, [8 node numbers, 1-based])
        self.quads = []  # (boundary id, [4 node numbers, 1-based])
        self.bodies = []  # dicts describing each body, for the summary

    def add_block(self, size, cells, place, material, face_ids, name):
        """A block of size (a, b, c) with its local corner at the origin, cells (nx, ny, nz), mapped
        by place(p) (a proper rigid motion), with face ids {'-x': id, '+x': ..., '-z': ..., '+z': ...}."""
        a, b, c = size
        nx, ny, nz = cells
        first = len(self.nodes) + 1

        def nid(i, j, k):
            return first + i + (nx + 1) * (j + (ny + 1) * k)

        for k in range(nz + 1):
            for j in range(ny + 1):
                for i in range(nx + 1):
                    self.nodes.append(place((a * i / nx, b * j / ny, c * k / nz)))
        for k in range(nz):
            for j in range(ny):
                for i in range(nx):
                    self.hexes.append((material, [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k),
                                                  nid(i, j + 1, k), nid(i, j, k + 1), nid(i + 1, j, k + 1),
                                                  nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)]))
        # The quadrilaterals of the six faces, counter-clockwise seen from outside.
        for k in range(nz):
            for j in range(ny):
                self.quads.append((face_ids["-x"], [nid(0, j, k), nid(0, j, k + 1), nid(0, j + 1, k + 1),
                                                    nid(0, j + 1, k)]))
                self.quads.append((face_ids["+x"], [nid(nx, j, k), nid(nx, j + 1, k),
                                                    nid(nx, j + 1, k + 1), nid(nx, j, k + 1)]))
        for k in range(nz):
            for i in range(nx):
                self.quads.append((face_ids["-y"], [nid(i, 0, k), nid(i + 1, 0, k), nid(i + 1, 0, k + 1),
                                                    nid(i, 0, k + 1)]))
                self.quads.append((face_ids["+y"], [nid(i, ny, k), nid(i, ny, k + 1),
                                                    nid(i + 1, ny, k + 1), nid(i + 1, ny, k)]))
        for j in range(ny):
            for i in range(nx):
                self.quads.append((face_ids["-z"], [nid(i, j, 0), nid(i, j + 1, 0), nid(i + 1, j + 1, 0),
                                                    nid(i + 1, j, 0)]))
                self.quads.append((face_ids["+z"], [nid(i, j, nz), nid(i + 1, j, nz),
                                                    nid(i + 1, j + 1, nz), nid(i, j + 1, nz)]))
        body_nodes = self.nodes[first - 1:]
        self.bodies.append({
            "name": name, "material": material, "size": size, "cells": cells,
            "nodes": len(body_nodes),
            "lo": tuple(min(p[d] for p in body_nodes) for d in range(3)),
            "hi": tuple(max(p[d] for p in body_nodes) for d in range(3)),
        })

    def check(self):
        """Positive Jacobian at every hexahedron's corners; outward boundary quadrilaterals."""
        def sub(p, q):
            return (p[0] - q[0], p[1] - q[1], p[2] - q[2])

        def cross(u, v):
            return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])

        def dot(u, v):
            return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]

        # Corner c of the reference hexahedron and its three neighbours along +xi, +eta, +zeta
        # (reversed where the corner is at the upper end).
        corner_edges = [(0, 1, 3, 4), (1, 0, 2, 5), (2, 3, 1, 6), (3, 2, 0, 7),
                        (4, 5, 7, 0), (5, 4, 6, 1), (6, 7, 5, 2), (7, 6, 4, 3)]
        signs = [(1, 1, 1), (-1, 1, 1), (-1, -1, 1), (1, -1, 1), (1, 1, -1), (-1, 1, -1), (-1, -1, -1),
                 (1, -1, -1)]
        centroid_of_cell = {}
        for e, (_, ns) in enumerate(self.hexes):
            p = [self.nodes[n - 1] for n in ns]
            for (c, i, j, k), (si, sj, sk) in zip(corner_edges, signs):
                jac = dot(cross(sub(p[i], p[c]), sub(p[j], p[c])), sub(p[k], p[c])) * si * sj * sk
                if jac <= 0.:
                    raise SystemExit("hexahedron %d has a non-positive Jacobian at corner %d" % (e + 1, c))
            for n in ns:
                centroid_of_cell.setdefault(n, []).append(e)
        for tag, ns in self.quads:
            p = [self.nodes[n - 1] for n in ns]
            normal = cross(sub(p[1], p[0]), sub(p[3], p[0]))
            cells = set(centroid_of_cell[ns[0]])
            for n in ns[1:]:
                cells &= set(centroid_of_cell[n])
            assert len(cells) == 1, "a boundary quadrilateral must belong to exactly one hexahedron"
            cell = self.hexes[cells.pop()][1]
            centre = tuple(sum(self.nodes[n - 1][d] for n in cell) / 8. for d in range(3))
            face_centre = tuple(sum(q[d] for q in p) / 4. for d in range(3))
            if dot(normal, sub(face_centre, centre)) <= 0.:
                raise SystemExit("boundary quadrilateral %s (id %d) is not oriented outward" % (ns, tag))

    def write(self, path):
        with open(path, "w") as f:
            f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
            f.write("$Nodes\n%d\n" % len(self.nodes))
            for n, (x, y, z) in enumerate(self.nodes, start=1):
                f.write("%d %.12g %.12g %.12g\n" % (n, x, y, z))
            f.write("$EndNodes\n$Elements\n%d\n" % (len(self.quads) + len(self.hexes)))
            # element: number, type (3 quadrilateral, 5 hexahedron), 2 tags (physical, elementary), nodes
            e = 0
            for etype, elements in ((3, self.quads), (5, self.hexes)):
                for tag, ns in elements:
                    e += 1
                    f.write("%d %d 2 %d %d %s\n" % (e, etype, tag, tag, " ".join(map(str, ns))))
            f.write("$EndElements\n")


def translate(origin):
    return lambda p: (origin[0] + p[0], origin[1] + p[1], origin[2] + p[2])


BODY_FACES = {"-z": BOTTOM, "+z": TOP, "-x": MINUS_X, "+x": PLUS_X, "-y": MINUS_Y, "+y": PLUS_Y}


def build_wall(args):
    mesh = Mesh()
    L, W, H = args.brick
    g, gb = args.gap, args.bed_gap
    nx, ny, nz = args.cells
    pitch = L + g
    length = args.bricks * pitch - g
    material = 0

    def next_material():
        nonlocal material
        material += 1
        return material if args.materials == "per-body" else 1

    for r in range(args.rows):
        z0 = gb + r * (H + gb)
        pieces = []  # (x0, length, cells along x, label)
        if r % 2 == 0:
            pieces = [(i * pitch, L, nx, "brick") for i in range(args.bricks)]
        elif args.ends == "half":
            half = (L - g) / 2.
            hx = max(1, round(nx / 2))
            pieces.append((0., half, hx, "half brick"))
            pieces += [(i * pitch + L / 2. + g / 2., L, nx, "brick") for i in range(args.bricks - 1)]
            pieces.append(((args.bricks - 1) * pitch + L / 2. + g / 2., half, hx, "half brick"))
        else:
            pieces = [(i * pitch + pitch / 2., L, nx, "brick") for i in range(args.bricks)]
        for i, (x0, lx, cx, label) in enumerate(pieces):
            mesh.add_block((lx, W, H), (cx, ny, nz), translate((x0, 0., z0)), next_material(), BODY_FACES,
                           "%s, row %d, #%d" % (label, r + 1, i + 1))
    height = args.rows * (H + gb) - gb
    s = args.projectile_size
    pc = args.projectile_cells
    centre_x, centre_z = length / 2., gb + height / 2.
    faces = dict(BODY_FACES)
    faces["-y"], faces["+y"] = PROJECTILE_BACK, PROJECTILE_FRONT
    material += 1
    mesh.add_block((s, s, s), (pc, pc, pc),
                   translate((centre_x - s / 2., -args.projectile_distance - s, centre_z - s / 2.)),
                   material if args.materials == "per-body" else 2, faces, "projectile")
    summary = ["wall: %d rows, %s ends, %g m long (x), %g m thick (y), %g m high (z, from z = %g)"
               % (args.rows, args.ends, length + (pitch / 2. if args.ends == "overhang" and args.rows > 1 else 0.),
                  W, height, gb),
               "projectile: cube %g m, centre x = %g, z = %g, front face y = %g (the wall's front face y = 0)"
               % (s, centre_x, centre_z, -args.projectile_distance)]
    return mesh, summary


def build_dominoes(args):
    mesh = Mesh()
    T, W, H = args.domino
    nx, ny, nz = args.cells
    phi = math.radians(args.tilt)
    zg = args.floor_gap
    summary = []
    for i in range(args.count):
        material = i + 1 if args.materials == "per-body" else 1
        xc = i * args.pitch
        if i == 0 and args.tilt != 0.:
            # About the y axis through the bottom +x edge (xp, zp): the local corner (0, 0, 0) of the
            # block is the bottom -x edge, at (-T, 0, 0) from the pivot before the turn.
            xp, zp = xc + T / 2., zg
            c, s_ = math.cos(phi), math.sin(phi)

            def place(p, xp=xp, zp=zp, c=c, s_=s_):
                x, z = p[0] - T, p[2]  # relative to the pivot
                return (xp + c * x + s_ * z, p[1] - W / 2., zp - s_ * x + c * z)

            top_corner_x = xp + H * s_
            clearance = (args.pitch - T / 2.) - top_corner_x if args.count > 1 else float("inf")
            if clearance <= 0.:
                raise SystemExit("the tilted domino 1 reaches into domino 2 (by %.4g m): lower --tilt or "
                                 "raise --pitch" % -clearance)
            summary.append("domino 1 tilted by %g deg about the y axis through its bottom +x edge, pivot "
                           "(x, z) = (%.6g, %.6g); its top corner at x = %.6g, %.4g m from domino 2"
                           % (args.tilt, xp, zp, top_corner_x, clearance))
        else:
            place = translate((xc - T / 2., -W / 2., zg))
        mesh.add_block((T, W, H), (nx, ny, nz), place, material, BODY_FACES, "domino %d" % (i + 1))
    if args.count > 1:
        summary.append("the dominoes 2... lie at x >= %.6g (domino 1 at x < %.6g)"
                       % (args.pitch - T / 2., mesh.bodies[0]["hi"][0]))
    return mesh, summary


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kind", choices=("wall", "dominoes"), required=True)
    parser.add_argument("--output", help="default: brick_wall.msh or dominoes.msh beside this script")
    parser.add_argument("--materials", choices=("per-body", "per-kind"), default="per-body",
                        help="material id per body (default) or per kind of body")
    parser.add_argument("--cells", type=int, nargs=3, metavar=("NX", "NY", "NZ"),
                        help="cells per brick / domino along x, y, z (default wall 4 2 2, dominoes 2 3 6)")
    wall = parser.add_argument_group("wall")
    wall.add_argument("--rows", type=int, default=2, help="rows of bricks (default 2)")
    wall.add_argument("--bricks", type=int, default=4, help="whole bricks in the bottom row (default 4)")
    wall.add_argument("--brick", type=float, nargs=3, default=(0.16, 0.08, 0.05), metavar=("L", "W", "H"),
                      help="brick length (x), thickness (y), height (z) [m] (default 0.16 0.08 0.05)")
    wall.add_argument("--gap", type=float, default=0.2e-3, help="head joints: gap between the bricks "
                      "of a row [m] (default 0.2e-3)")
    wall.add_argument("--bed-gap", type=float, default=0.1e-3, help="bed joints: gap between rows and "
                      "between the bottom row and the floor [m] (default 0.1e-3)")
    wall.add_argument("--ends", choices=("half", "overhang"), default="half",
                      help="odd rows: two half bricks at the ends (default) or n whole bricks "
                      "overhanging the +x end by half a pitch")
    wall.add_argument("--projectile-size", type=float, default=0.05, help="cube edge [m] (default 0.05)")
    wall.add_argument("--projectile-cells", type=int, default=2, help="cells per cube edge (default 2)")
    wall.add_argument("--projectile-distance", type=float, default=2e-3,
                      help="from the cube's front face to the wall's front face [m] (default 2e-3)")
    dom = parser.add_argument_group("dominoes")
    dom.add_argument("--count", type=int, default=6, help="number of dominoes (default 6)")
    dom.add_argument("--domino", type=float, nargs=3, default=(0.008, 0.024, 0.048), metavar=("T", "W", "H"),
                     help="thickness (x), width (y), height (z) [m] (default 0.008 0.024 0.048)")
    dom.add_argument("--pitch", type=float, default=0.03, help="centre spacing along x [m] (default 0.03)")
    dom.add_argument("--tilt", type=float, default=15., help="domino 1's tilt toward +x [deg] (default 15)")
    dom.add_argument("--floor-gap", type=float, default=0.1e-3, help="bottoms above z = 0 [m] (default 0.1e-3)")
    args = parser.parse_args()
    if args.cells is None:
        args.cells = (4, 2, 2) if args.kind == "wall" else (2, 3, 6)
    if min(args.cells) < 1:
        parser.error("--cells must be positive")
    if args.kind == "wall":
        if args.rows < 1 or args.bricks < (2 if args.ends == "half" else 1):
            parser.error("--rows >= 1 and --bricks >= 2 (>= 1 with --ends overhang)")
        mesh, summary = build_wall(args)
        default_name = "brick_wall.msh"
    else:
        if args.count < 1:
            parser.error("--count >= 1")
        if args.pitch <= args.domino[0]:
            parser.error("--pitch must exceed the thickness")
        if not 0. <= args.tilt < 90.:
            parser.error("--tilt must be in [0, 90) degrees (toward +x, about the bottom +x edge)")
        mesh, summary = build_dominoes(args)
        default_name = "dominoes.msh"
    output = args.output or os.path.join(here, default_name)
    mesh.check()
    mesh.write(output)
    print("wrote %s: %d bodies, %d nodes (%d DoFs in 3D, Q1), %d hexahedra, %d quadrilaterals"
          % (output, len(mesh.bodies), len(mesh.nodes), 3 * len(mesh.nodes), len(mesh.hexes), len(mesh.quads)))
    for line in summary:
        print(line)
    print("boundary ids: 1 bottom, 2 top, 3 -x, 4 +x, 5 -y, 6 +y%s"
          % ("; projectile 7 back (-y), 8 front (+y)" if args.kind == "wall" else ""))
    for b in mesh.bodies:
        print("  material %3d  %-22s %g x %g x %g m, %d x %d x %d cells, x [%.6g, %.6g] y [%.6g, %.6g] "
              "z [%.6g, %.6g]" % ((b["material"], b["name"]) + tuple(b["size"]) + tuple(b["cells"])
                                  + (b["lo"][0], b["hi"][0], b["lo"][1], b["hi"][1], b["lo"][2], b["hi"][2])))


if __name__ == "__main__":
    main()
