#!/usr/bin/env python3
"""Write ball_on_block.msh: an elastic ball above an elastic block, two bodies of hexahedra (MSH 2.2 ASCII).

Used by ball_on_block.prm in this directory. Standard library only (percussion has no built-in
mesh with a ball and a second body, and gmsh is not needed):

    /usr/bin/python3 make_ball_on_block.py                 # writes ball_on_block.msh beside this file
    /usr/bin/python3 make_ball_on_block.py --ball-cells 6 --block-cells 12 --output coarse.msh

Ball (material id 1): radius R, centre (0, 0, R + gap) above the block's top face z = 0. Its mesh
has the topology of deal.II's hyper_ball: an inner cube and six shell blocks, one per cube face,
each with n x n cells on the sphere (equiangular: the sphere points are along (tan(pi p/4),
tan(pi q/4), 1) for p, q in [-1, 1]) and m layers from the cube face to the sphere; n x n x n cells
in the inner cube. The vertices are then moved by the Moebius automorphism of the ball that fixes
its south pole (0, 0, gap) and moves its centre toward it by s R (s = --grading): the map is
conformal and keeps the sphere, the cells at the south pole shrink by (1 - s)/(1 + s) and those at
the north pole grow by (1 + s)/(1 - s). The surface vertices lie on the sphere; the faces between
them are flat (Q1), so the mesh's volume is below the ball's: by 1.7 % without grading (s = 0) and
by 9.6 % with the default s = 0.6, whose large cells at the north pole cut off more.

Block (material id 2): [-W/2, W/2]^2 x [-D, 0], a structured grid of hexahedra graded toward the
axis x = y = 0 and the top face z = 0, where the ball lands: x = (W/2) sinh(b xi)/sinh(b) for
xi uniform in [-1, 1] (the same in y), and layers in z growing by the ratio 1.25 from the top down.

Boundary ids (the physical tags of quadrilaterals, gmsh type 3), as 10 b + f for body b:

  * ball: 10 the faces below the ball's equator (the contact surface), 11 those above;
  * block: 20 / 21 at x = -W/2 / +W/2, 22 / 23 at y = -W/2 / +W/2, 24 the bottom z = -D,
    25 the top z = 0 (the numbering of the built-in 'box', f = 0 ... 5).

Node ordering: gmsh's reference hexahedron (nodes 0-3 one face counter-clockwise seen from the
opposite face's side, 4-7 that face), checked per cell with the signed volume and reversed when
negative; boundary quadrilaterals counter-clockwise seen from outside.
"""

import argparse
import math
import os

R = 0.01  # ball radius [m]
GAP = 2e-6  # initial gap between the ball's south pole and the block [m]
W = 0.06  # block width [m]
D = 0.03  # block depth [m]


def ball(n, m, inner, s):
    """The ball's vertices (unit ball, centred) and hexahedra (8 vertex keys each)."""
    points = {}  # key -> (x, y, z)
    hexes = []

    def key(p):
        return tuple(round(c, 9) for c in p)

    def add(p):
        k = key(p)
        points.setdefault(k, p)
        return k

    # inner cube [-inner, inner]^3, n^3 cells
    grid = [-inner + 2 * inner * i / n for i in range(n + 1)]
    for k in range(n):
        for j in range(n):
            for i in range(n):
                hexes.append([add((grid[i + di], grid[j + dj], grid[k + dk]))
                              for (di, dj, dk) in CORNERS])
    # six shell blocks: axis a, sign sg; (p, q) along the two other axes
    for a in range(3):
        others = [d for d in range(3) if d != a]
        for sg in (-1.0, 1.0):
            def point(i, j, l):
                p, q = -1 + 2 * i / n, -1 + 2 * j / n
                pin = [0.0, 0.0, 0.0]
                pin[a], pin[others[0]], pin[others[1]] = sg * inner, p * inner, q * inner
                dirn = [0.0, 0.0, 0.0]
                dirn[a], dirn[others[0]], dirn[others[1]] = sg, math.tan(math.pi * p / 4), math.tan(math.pi * q / 4)
                norm = math.sqrt(sum(c * c for c in dirn))
                pout = [c / norm for c in dirn]
                w = l / m
                return tuple((1 - w) * u + w * v for u, v in zip(pin, pout))

            for l in range(m):
                for j in range(n):
                    for i in range(n):
                        hexes.append([add(point(i + di, j + dj, l + dk)) for (di, dj, dk) in CORNERS])
    # Moebius grading toward the south pole d = (0, 0, -1): T(x) = phi_a(x), a = -s d
    if s > 0:
        av = (0.0, 0.0, s)  # a = -s d

        def moebius(x):
            xa = [xi - ai for xi, ai in zip(x, av)]
            nxa2 = sum(c * c for c in xa)
            a2 = s * s
            x2 = sum(c * c for c in x)
            den = 1 - 2 * sum(xi * ai for xi, ai in zip(x, av)) + x2 * a2
            return tuple(((1 - a2) * u - nxa2 * ai) / den for u, ai in zip(xa, av))

        # phi_a maps 0 to -a = s d: the centre moves toward the south pole
        points = {k: moebius(p) for k, p in points.items()}
    return points, hexes


# gmsh reference hexahedron: (i, j, k) offsets of nodes 0 ... 7
CORNERS = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
# the six faces of the reference hexahedron (node positions), each counter-clockwise seen from outside
FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (2, 3, 7, 6), (0, 4, 7, 3), (1, 2, 6, 5)]


def block_coordinates(nxy, nz, beta):
    xs = [0.5 * W * math.sinh(beta * (-1 + 2 * i / nxy)) / math.sinh(beta) for i in range(nxy + 1)]
    # z: cells growing geometrically from the top (ratio r) down to -D
    r = 1.25
    sizes = [r ** k for k in range(nz)]
    total = sum(sizes)
    zs = [0.0]
    for sz in sizes:
        zs.append(zs[-1] - D * sz / total)
    zs[-1] = -D
    return xs, sorted(zs)


def signed_volume(p):
    a = [p[1][c] - p[0][c] for c in range(3)]
    b = [p[3][c] - p[0][c] for c in range(3)]
    c = [p[4][k] - p[0][k] for k in range(3)]
    return (a[1] * b[2] - a[2] * b[1]) * c[0] + (a[2] * b[0] - a[0] * b[2]) * c[1] + (a[0] * b[1] - a[1] * b[0]) * c[2]


def build(n, m, inner, s, nxy, nz, beta):
    nodes = []
    index = {}
    hexes = []  # (material, [8 node numbers])

    def number(body, k, p):
        if (body, k) not in index:
            nodes.append(p)
            index[(body, k)] = len(nodes)
        return index[(body, k)]

    bpoints, bhexes = ball(n, m, inner, s)
    centre = (0.0, 0.0, R + GAP)
    scaled = {k: tuple(centre[c] + R * p[c] for c in range(3)) for k, p in bpoints.items()}
    for hx in bhexes:
        hexes.append((1, [number(1, k, scaled[k]) for k in hx]))
    xs, zs = block_coordinates(nxy, nz, beta)
    for k in range(nz):
        for j in range(nxy):
            for i in range(nxy):
                hexes.append((2, [number(2, (i + di, j + dj, k + dk), (xs[i + di], xs[j + dj], zs[k + dk]))
                                  for (di, dj, dk) in CORNERS]))
    # orientation
    for e, (mat, ns) in enumerate(hexes):
        if signed_volume([nodes[v - 1] for v in ns]) < 0:
            hexes[e] = (mat, ns[4:] + ns[:4])
    # boundary faces: faces of exactly one hexahedron
    count = {}
    for mat, ns in hexes:
        for f in FACES:
            fk = frozenset(ns[i] for i in f)
            count[fk] = count.get(fk, 0) + 1
    quads = []
    for mat, ns in hexes:
        for f in FACES:
            vs = [ns[i] for i in f]
            if count[frozenset(vs)] != 1:
                continue
            ps = [nodes[v - 1] for v in vs]
            c = [sum(p[k] for p in ps) / 4 for k in range(3)]
            if mat == 1:
                tag = 10 if c[2] < centre[2] else 11
            else:
                tol = 1e-9
                if abs(c[0] + W / 2) < tol:
                    tag = 20
                elif abs(c[0] - W / 2) < tol:
                    tag = 21
                elif abs(c[1] + W / 2) < tol:
                    tag = 22
                elif abs(c[1] - W / 2) < tol:
                    tag = 23
                elif abs(c[2] + D) < tol:
                    tag = 24
                elif abs(c[2]) < tol:
                    tag = 25
                else:
                    raise SystemExit("a block boundary face that is on no side: %s" % c)
            quads.append((tag, vs))
    return nodes, hexes, quads, xs, zs


def write_msh(path, nodes, hexes, quads):
    with open(path, "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
        f.write("$Nodes\n%d\n" % len(nodes))
        for n, (x, y, z) in enumerate(nodes, start=1):
            f.write("%d %.9g %.9g %.9g\n" % (n, x, y, z))
        f.write("$EndNodes\n$Elements\n%d\n" % (len(quads) + len(hexes)))
        e = 0
        for etype, elements in ((3, quads), (5, hexes)):
            for tag, ns in elements:
                e += 1
                f.write("%d %d 2 %d %d %s\n" % (e, etype, tag, tag, " ".join(map(str, ns))))
        f.write("$EndElements\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", default=os.path.join(here, "ball_on_block.msh"))
    parser.add_argument("--ball-cells", type=int, default=8, help="n: cells along a cube face of the ball")
    parser.add_argument("--ball-layers", type=int, default=4, help="m: shell layers of the ball")
    parser.add_argument("--inner", type=float, default=0.4, help="half edge of the ball's inner cube / R")
    parser.add_argument("--grading", type=float, default=0.6, help="s: Moebius grading toward the south pole")
    parser.add_argument("--block-cells", type=int, default=16, help="cells along x and y of the block")
    parser.add_argument("--block-layers", type=int, default=8, help="cells along z of the block")
    parser.add_argument("--block-grading", type=float, default=3.0, help="b: sinh grading of x, y toward the axis")
    args = parser.parse_args()
    nodes, hexes, quads, xs, zs = build(args.ball_cells, args.ball_layers, args.inner, args.grading,
                                        args.block_cells, args.block_layers, args.block_grading)
    write_msh(args.output, nodes, hexes, quads)
    nball = sum(1 for mat, _ in hexes if mat == 1)
    centre = (0.0, 0.0, R + GAP)
    ball_nodes = set(v for mat, ns in hexes if mat == 1 for v in ns)
    # surface spacing at the south pole: the distance to the nearest other vertex on the sphere
    ring = min(math.dist(nodes[v - 1], (0.0, 0.0, GAP)) for v in ball_nodes
               if nodes[v - 1][2] > GAP + 1e-12 and abs(math.dist(nodes[v - 1], centre) - R) < 1e-9)
    c = len(xs) // 2
    print("wrote %s: %d nodes, %d hexahedra (ball %d, block %d), %d boundary quadrilaterals"
          % (args.output, len(nodes), len(hexes), nball, len(hexes) - nball, len(quads)))
    print("ball: R = %g m, south pole at z = %g m, nearest surface vertex %.3g m from it; block: %g x %g x %g m, "
          "top cells at the centre %.3g x %.3g x %.3g m, at the corners %.3g m wide"
          % (R, GAP, ring, W, W, D, xs[c + 1] - xs[c], xs[c + 1] - xs[c], zs[-1] - zs[-2], xs[1] - xs[0]))


if __name__ == "__main__":
    main()
