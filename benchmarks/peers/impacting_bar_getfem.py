#!/usr/bin/python3
"""The 1D impacting bar (doc/theory.md reference problem 1; applications/impacting_bar/impacting_bar_1d.prm)
in GetFEM: L = 1 m, S = 3.14e-4 m², E = 210 GPa, rho = 7800 kg/m³, v0 = -0.1 m/s, a rigid wall at
x = -5e-5 m, N = 1000 linear elements, h = 1.9272476e-7 s = L/(N c), T = 1.5e-3 s (7783 steps).

GetFEM builds the mesh (Mesh 'cartesian'), the P1 space (MeshFem, classical FEM of degree 1), the
integration (IM_GAUSS1D(2)) and assembles M (asm_mass_matrix, lumped by row sums) and K
(asm_laplacian with coefficient E S). The scheme is explicit central differences with the lumped mass,
  u^{n+1} = 2 u^n - u^{n-1} - h² M_L^{-1} (K u^n - r^{n+1}),
each step one GetFEM sparse mat-vec (Spmat.mult). Two treatments of the wall:
- lumped (default): a Lagrange multiplier at the end node enforced on the predicted position
  (forward-increment): r = m_0 (-g0 - u_pred)/h² when u_pred < -g0, so the node stops exactly at the
  wall with zero velocity (the explicit impact rule with e = 0; the node's kinetic energy is lost);
- singular (--mass singular): the singular mass method (Khenous, Laborde, Renard): the end node's
  mass is moved to its neighbour, so the end node has none and follows from the quasi-static
  condition 0 = -(K u)_0 + r, r >= 0, u_0 >= -g0, r (u_0 + g0) = 0, i.e. u_0 = max(u_1, -g0);
  no kinetic energy is lost at impact.

Printed (like benchmarks/impacting_bar/run.sh): steps/s of the time loop alone (fastest of REPEATS
runs, default 3), E_end/E_0 with the central-difference energy
E^{n+1/2} = ½ v^{n+1/2}ᵀ M_L v^{n+1/2} + ½ u^nᵀ K u^{n+1} (v^{n+1/2} = (u^{n+1} - u^n)/h), which the
scheme conserves in free flight, and the contact duration: steps with a positive wall force times h
against the exact 2L/c.
Usage: impacting_bar_getfem.py [--repeats N] [--mass lumped|singular] [--scipy]
  (--scipy: the same loop with SciPy's mat-vec instead of GetFEM's)
"""
import argparse
import sys
import time

import numpy as np

try:
    import getfem as gf
except ImportError:
    sys.exit("impacting_bar_getfem: GetFEM's Python interface is missing "
             "(apt-get install python3-getfem, then run with /usr/bin/python3)")

from bar_case import E, GAP, H, L, N, RHO, S, T, V0, fastest, report


def assemble():
    mesh = gf.Mesh('cartesian', np.linspace(0.0, L, N + 1))
    mf = gf.MeshFem(mesh, 1)
    mf.set_classical_fem(1)
    mim = gf.MeshIm(mesh, gf.Integ('IM_GAUSS1D(2)'))
    ndof = mf.nbdof()
    M = gf.asm_mass_matrix(mim, mf)
    M.scale(RHO * S)
    K = gf.asm_laplacian(mim, mf, mf, np.full(ndof, E * S))
    m_lumped = M.full().sum(axis=1)  # 1001 x 1001: small enough to sum densely once
    end = int(np.argmin(mf.basic_dof_nodes()[0]))  # the node at x = 0
    return K, m_lumped, end


def run(K, m_lumped, end, matvec, singular):
    steps = int(round(T / H))
    if singular:  # the end node's mass to its neighbour (the end node is the first or the last DoF)
        m_lumped = m_lumped.copy()
        neighbour = end + 1 if end == 0 else end - 1
        m_lumped[neighbour] += m_lumped[end]
        m_lumped[end] = 0.0
        h2_over_m = H * H / np.where(m_lumped > 0, m_lumped, 1.0)
        h2_over_m[end] = 0.0
    else:
        h2_over_m = H * H / m_lumped
    u_prev = np.zeros_like(m_lumped)
    u = H * V0 * np.ones_like(m_lumped)  # u^1 = h v0 (free flight: exact for a rigid motion)
    # the first step from u^0 = 0 (no contact possible: the gap is 259 steps of flight)
    energy0 = 0.5 * np.dot(m_lumped, ((u - u_prev) / H) ** 2) + 0.5 * np.dot(u_prev, matvec(K, u))
    contact_steps = 0
    Ku = matvec(K, u)
    start = time.perf_counter()
    for _ in range(steps - 1):
        u_next = 2.0 * u - u_prev - h2_over_m * Ku
        if singular:  # the massless end node: u_0 = max(u_1, -g0), a reaction when u_1 < -g0
            u_next[end] = u_next[neighbour]
            if u_next[end] < -GAP:
                u_next[end] = -GAP
                contact_steps += 1
        elif u_next[end] < -GAP:  # the wall: a multiplier that puts the node on it
            u_next[end] = -GAP
            contact_steps += 1
        u_prev, u = u, u_next
        Ku = matvec(K, u)
    seconds = time.perf_counter() - start
    energy_end = 0.5 * np.dot(m_lumped, ((u - u_prev) / H) ** 2) + 0.5 * np.dot(u_prev, Ku)
    return steps, seconds, energy_end / energy0, contact_steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--mass', choices=['lumped', 'singular'], default='lumped')
    parser.add_argument('--scipy', action='store_true', help="the mat-vec by SciPy instead of GetFEM's Spmat")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error('--repeats must be at least 1')
    K, m_lumped, end = assemble()
    if args.scipy:
        import scipy.sparse
        ind = K.csc_ind()
        Ks = scipy.sparse.csc_matrix((K.csc_val(), ind[1], ind[0]), shape=tuple(K.size())).tocsr()
        matvec, label = (lambda A, x: Ks @ x), f'explicit CD, {args.mass} mass, SciPy mat-vec'
    else:
        matvec, label = (lambda A, x: A.mult(x)), f'explicit CD, {args.mass} mass, GetFEM mat-vec'
    best = fastest(lambda: run(K, m_lumped, end, matvec, args.mass == 'singular'), args.repeats)
    wall = 'nodal multiplier on the predicted position' if args.mass == 'lumped' else 'massless end node, u_0 = max(u_1, -g0)'
    report(f'{label}; wall: {wall}', best, args.repeats)


if __name__ == '__main__':
    main()
