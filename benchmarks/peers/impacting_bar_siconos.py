#!/usr/bin/python3
"""The 1D impacting bar (doc/theory.md reference problem 1; applications/impacting_bar/impacting_bar_1d.prm)
in Siconos: L = 1 m, S = 3.14e-4 m², E = 210 GPa, rho = 7800 kg/m³, v0 = -0.1 m/s, a rigid wall at
x = -5e-5 m, N = 1000 linear elements, h = 1.9272476e-7 s = L/(N c), T = 1.5e-3 s (7783 steps).

The bar is a LagrangianLinearTIDS with the P1 mass (consistent, or lumped with --mass lumped) and
stiffness matrices (dense, as Siconos' kernel holds them); the wall is a LagrangianLinearTIR
y = q_0 + g0 >= 0 on the end node with a NewtonImpactNSL (e = 0); the scheme is MoreauJeanOSI with
theta = 1/2 and the one-contact problem an LCP, in a TimeStepping simulation.

Printed (like benchmarks/impacting_bar/run.sh): steps/s of the time loop alone (computeOneStep and
nextStep; fastest of REPEATS runs, default 3), E_end/E_0 with E = ½ vᵀMv + ½ qᵀKq, and the contact
duration: steps with a positive impulse times h against the exact 2L/c.
Usage: impacting_bar_siconos.py [--repeats N] [--mass consistent|lumped]
"""
import argparse
import sys
import time

import numpy as np

try:
    import siconos.kernel as sk
except ImportError as error:
    sys.exit(f"impacting_bar_siconos: Siconos' Python interface is missing ({error}); "
             "apt-get install python3-siconos, then run with /usr/bin/python3")

from bar_case import E, GAP, H, L, N, RHO, S, T, V0, fastest, report


def matrices(mass):
    n, dx = N + 1, L / N
    M = np.zeros((n, n))
    K = np.zeros((n, n))
    for e in range(N):
        i = [e, e + 1]
        if mass == 'lumped':
            M[np.ix_(i, i)] += RHO * S * dx / 2 * np.eye(2)
        else:
            M[np.ix_(i, i)] += RHO * S * dx / 6 * np.array([[2.0, 1.0], [1.0, 2.0]])
        K[np.ix_(i, i)] += E * S / dx * np.array([[1.0, -1.0], [-1.0, 1.0]])
    return M, K


def run(M, K):
    n = N + 1
    steps = int(round(T / H))
    bar = sk.LagrangianLinearTIDS(np.zeros(n), np.full(n, V0), M)
    bar.setKPtr(K)
    Hrow = np.zeros((1, n))
    Hrow[0, 0] = 1.0
    relation = sk.LagrangianLinearTIR(Hrow, [GAP])
    wall = sk.Interaction(sk.NewtonImpactNSL(0.0), relation)
    nsds = sk.NonSmoothDynamicalSystem(0.0, steps * H)
    nsds.insertDynamicalSystem(bar)
    nsds.link(wall, bar)
    osi = sk.MoreauJeanOSI(0.5)
    simulation = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, H), osi, sk.LCP())
    energy0 = 0.5 * V0 * V0 * M.sum()
    contact_steps = 0
    done = 0
    start = time.perf_counter()
    while simulation.hasNextEvent():
        simulation.computeOneStep()
        if wall.lambda_(1)[0] > 0:
            contact_steps += 1
        simulation.nextStep()
        done += 1
    seconds = time.perf_counter() - start
    q, v = np.array(bar.q()), np.array(bar.velocity())
    energy_end = 0.5 * v @ M @ v + 0.5 * q @ K @ q
    return done, seconds, energy_end / energy0, contact_steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--mass', choices=['consistent', 'lumped'], default='consistent')
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error('--repeats must be at least 1')
    M, K = matrices(args.mass)
    best = fastest(lambda: run(M, K), args.repeats)
    report(f'Moreau-Jean theta = 1/2, {args.mass} mass (dense), NewtonImpactNSL e = 0, LCP', best, args.repeats)


if __name__ == '__main__':
    main()
