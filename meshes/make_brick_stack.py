#!/usr/bin/env python3
"""Write meshes/brick_stack.msh: a stepped stack of four steel bricks with small gaps (MSH 2.2 ASCII).

Used by applications/brick_stack. Standard library only:

    /usr/bin/python3 meshes/make_brick_stack.py              # writes brick_stack.msh beside this file
    /usr/bin/python3 meshes/make_brick_stack.py --cell 0.06 --output tiny.msh   # a coarse check mesh

Every brick is a structured block of hexahedra (gmsh element type 5) with its own nodes: the
bricks share no node and interact only through contact. Brick b (b = 1 ... 4, from the bottom up)
has

  * material id b (the physical tag of its hexahedra);
  * boundary ids 10 b + f on its faces (the physical tags of quadrilaterals, gmsh type 3), with f
    numbered in the brick's own frame as for the built-in 'box' mesh: f = 0 / 1 at the lower /
    upper end of its long axis x', 2 / 3 on its sides y', 4 its bottom face, 5 its top face
    (brick 1: 10 ... 15, brick 2: 20 ... 25, ...).

Geometry: brick b is L_b x W_b x H (long axis x'); it is first tilted about x' by 'tilt', then
rotated about the vertical z axis by 'yaw', then moved so that its centre is above (cx, cy) and
the lowest point of its bottom face lies 'gap' above the highest point of the top face of the brick
below (brick 1: above the floor z = 0). Only the top brick is tilted, so the faces below it stay
horizontal and the gaps are exact. The offsets and angles make the landings not symmetric.

Each brick is smaller than the one below and lies, seen from above, entirely inside it (checked
below): body-to-body contact is node-to-face, one-sided, so every node of a slave face (a brick's
bottom face) must lie over the master face (the top face of the brick below); an overhanging
slave node would have nothing to land on, and a master edge under a slave face is not checked.

Node ordering (gmsh's reference hexahedron, which deal.II's GridIn::read_msh converts to its own
numbering): nodes 0-3 the bottom face counter-clockwise seen from above (+z'), nodes 4-7 the top
face in the same order, so that every hexahedron has a positive Jacobian. Boundary
quadrilaterals are listed counter-clockwise seen from outside the brick (outward normal).
"""

import argparse
import math
import os

H = 0.06  # brick height [m], the same for all bricks

# (L [m], W [m], cx [m], cy [m], yaw [deg], tilt [deg], gap below [m]), bricks 1 ... 4 bottom to top.
BRICKS = [
    (0.24, 0.12, 0.000, 0.000, 0.0, 0.0, 0.5e-3),
    (0.20, 0.10, 0.004, -0.002, 2.0, 0.0, 0.3e-3),
    (0.16, 0.08, -0.003, 0.001, -1.0, 0.0, 0.3e-3),
    (0.12, 0.06, 0.006, 0.000, 3.0, 1.5, 0.3e-3),
]


def rotation(yaw_deg, tilt_deg):
    """R = Rz(yaw) Rx(tilt), applied to a point of the brick's own frame."""
    a, b = math.radians(yaw_deg), math.radians(tilt_deg)
    ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)

    def apply(p):
        x, y, z = p
        y, z = cb * y - sb * z, sb * y + cb * z  # Rx(tilt)
        return (ca * x - sa * y, sa * x + ca * y, z)  # Rz(yaw)

    return apply


def inside_margin(p, brick):
    """Distance (m) by which the point p lies inside the footprint of brick (negative: outside)."""
    L, W, cx, cy, yaw, _, _ = brick
    a = math.radians(yaw)
    dx, dy = p[0] - cx, p[1] - cy
    xl = math.cos(a) * dx + math.sin(a) * dy
    yl = -math.sin(a) * dx + math.cos(a) * dy
    return min(L / 2 - abs(xl), W / 2 - abs(yl))


def build(cell):
    nodes = []  # (x, y, z)
    hexes = []  # (material id, [8 node numbers, 1-based])
    quads = []  # (boundary id, [4 node numbers, 1-based])
    info = []  # per brick: (nx, ny, nz, lowest z of the bottom face, highest z, footprint margin)
    top_below = 0.0  # the floor
    nz = max(1, round(H / cell))
    for b, brick in enumerate(BRICKS, start=1):
        L, W, cx, cy, yaw, tilt, gap = brick
        nx, ny = max(1, round(L / cell)), max(1, round(W / cell))
        rot = rotation(yaw, tilt)
        corners = [rot((sx * L / 2, sy * W / 2, sz * H / 2))
                   for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
        zmin = min(c[2] for c in corners)
        zmax = max(c[2] for c in corners)
        cz = top_below + gap - zmin
        top_below = cz + zmax

        first = len(nodes) + 1  # 1-based number of this brick's node (0, 0, 0)

        def nid(i, j, k):
            return first + i + (nx + 1) * (j + (ny + 1) * k)

        for k in range(nz + 1):
            for j in range(ny + 1):
                for i in range(nx + 1):
                    p = (-L / 2 + L * i / nx, -W / 2 + W * j / ny, -H / 2 + H * k / nz)
                    x, y, z = rot(p)
                    nodes.append((cx + x, cy + y, cz + z))

        margin = float("inf")
        if b > 1:  # every bottom-face node of brick b over the top face of brick b - 1
            for j in range(ny + 1):
                for i in range(nx + 1):
                    margin = min(margin, inside_margin(nodes[nid(i, j, 0) - 1], BRICKS[b - 2]))
            if margin <= 0:
                raise SystemExit("brick %d overhangs brick %d by %.4g m" % (b, b - 1, -margin))
        info.append((nx, ny, nz, cz + zmin, cz + zmax, margin))

        for k in range(nz):
            for j in range(ny):
                for i in range(nx):
                    hexes.append((b, [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k),
                                      nid(i, j + 1, k), nid(i, j, k + 1), nid(i + 1, j, k + 1),
                                      nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)]))

        base = 10 * b
        # The quadrilaterals of the six faces, counter-clockwise seen from outside.
        for k in range(nz):
            for j in range(ny):
                quads.append((base + 0, [nid(0, j, k), nid(0, j, k + 1), nid(0, j + 1, k + 1),
                                         nid(0, j + 1, k)]))
                quads.append((base + 1, [nid(nx, j, k), nid(nx, j + 1, k),
                                         nid(nx, j + 1, k + 1), nid(nx, j, k + 1)]))
        for k in range(nz):
            for i in range(nx):
                quads.append((base + 2, [nid(i, 0, k), nid(i + 1, 0, k), nid(i + 1, 0, k + 1),
                                         nid(i, 0, k + 1)]))
                quads.append((base + 3, [nid(i, ny, k), nid(i, ny, k + 1),
                                         nid(i + 1, ny, k + 1), nid(i + 1, ny, k)]))
        for j in range(ny):
            for i in range(nx):
                quads.append((base + 4, [nid(i, j, 0), nid(i, j + 1, 0), nid(i + 1, j + 1, 0),
                                         nid(i + 1, j, 0)]))
                quads.append((base + 5, [nid(i, j, nz), nid(i + 1, j, nz),
                                         nid(i + 1, j + 1, nz), nid(i, j + 1, nz)]))
    return nodes, hexes, quads, info


def write_msh(path, nodes, hexes, quads):
    with open(path, "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
        f.write("$Nodes\n%d\n" % len(nodes))
        for n, (x, y, z) in enumerate(nodes, start=1):
            f.write("%d %.10g %.10g %.10g\n" % (n, x, y, z))
        f.write("$EndNodes\n$Elements\n%d\n" % (len(quads) + len(hexes)))
        # element: number, type (3 quadrilateral, 5 hexahedron), 2 tags (physical, elementary), nodes
        e = 0
        for etype, elements in ((3, quads), (5, hexes)):
            for tag, ns in elements:
                e += 1
                f.write("%d %d 2 %d %d %s\n" % (e, etype, tag, tag, " ".join(map(str, ns))))
        f.write("$EndElements\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", default=os.path.join(here, "brick_stack.msh"))
    parser.add_argument("--cell", type=float, default=0.015,
                        help="target cell edge [m] (default 0.015)")
    args = parser.parse_args()
    nodes, hexes, quads, info = build(args.cell)
    write_msh(args.output, nodes, hexes, quads)
    print("wrote %s: %d bricks, %d nodes, %d hexahedra, %d quadrilaterals"
          % (args.output, len(BRICKS), len(nodes), len(hexes), len(quads)))
    for b, (nx, ny, nz, zlo, zhi, margin) in enumerate(info, start=1):
        L, W = BRICKS[b - 1][:2]
        print("brick %d: %g x %g x %g m, %d x %d x %d cells, %d bottom-face nodes; material id %d; "
              "bottom face id %d, lowest z %.6f m; top face id %d, highest z %.6f m%s"
              % (b, L, W, H, nx, ny, nz, (nx + 1) * (ny + 1), b, 10 * b + 4, zlo, 10 * b + 5,
                 zhi, "" if b == 1 else "; inside brick %d by >= %.4f m" % (b - 1, margin)))


if __name__ == "__main__":
    main()
