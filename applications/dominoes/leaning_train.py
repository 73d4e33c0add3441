#!/usr/bin/env python3
"""The rigid leaning-train model of a row of falling dominoes, for comparison with applications/dominoes.

    /usr/bin/python3 leaning_train.py [--count 6] [--domino T H] [--pitch P] [--tilt DEG] [--omega W0]
        [--friction MU] [--end-time T] [--threshold RAD] [--compare output/bodies.csv] [--tolerance F]

Rigid dominoes (thickness T along x, height H) stand on their bottom +x edges, pitch P apart; each
turns about that edge (a pivot that neither slides nor lifts) by its angle phi_i. Domino 1 starts
tilted by --tilt with angular velocity --omega; the others stand at rest. The top front corner of a
falling domino i meets the rear face of domino i+1 where

    g_i(phi_i, phi_{i+1}) = P cos(phi_{i+1}) - H sin(phi_i - phi_{i+1}) - T = 0,

and then slides along it: s_i = H cos(phi_i - phi_{i+1}) - P sin(phi_{i+1}) is the height of the
contact point on domino i+1's face, so ds_i/dt is the sliding velocity. The model is that of
Stronge and Shu (Proc. R. Soc. Lond. A 418, 1988, 155-163) and van Leeuwen (Am. J. Phys. 78, 2010,
721-727): each strike is completely inelastic (e = 0: the struck domino joins the train, no contact
of the train opens), Coulomb friction mu acts at the contacts between dominoes, none at the pivots.

Between strikes the train obeys M phi'' = Q_gravity + sum_i lambda_i (grad g_i - mu sigma_i grad s_i)
with g_i'' = 0 (sigma_i the sign of the sliding velocity, lambda_i >= 0 the contact force); a strike
solves the impulse form of the same equations with g_i' = 0 after it for every contact. The
equations are integrated by the classical Runge-Kutta method with a fixed step, the contacts'
positions and velocities projected back onto g_i = 0 after every step. The model stops when the
front domino's corner would pass the top of the next one or the front domino lands on the floor.

Prints the time at which each domino's angle (from its initial one) first reaches --threshold, the
intervals, and the speed of the front (pitch / interval). With --compare it reads a percussion
bodies.csv (per-body rotation_angle), finds the same times and prints the differences; with
--tolerance F it exits 1 when a domino's time differs from the model's by more than F times the
model's interval before it, and with --speed-tolerance F when the mean front speed from domino 2
to the last differs from the model's by more than the fraction F. numpy only.
"""

import argparse
import csv
import math
import sys

import numpy as np

GRAVITY = 9.81


class Row:
    """Geometry and the contact functions of the row (the formulas of the module comment)."""

    def __init__(self, thickness, height, pitch, friction):
        self.T, self.H, self.P, self.mu = thickness, height, pitch, friction

    def gap(self, phi, psi):
        return self.P * math.cos(psi) - self.H * math.sin(phi - psi) - self.T

    def gap_gradient(self, phi, psi):
        c = self.H * math.cos(phi - psi)
        return -c, c - self.P * math.sin(psi)

    def gap_hessian(self, phi, psi):
        s = self.H * math.sin(phi - psi)
        return s, -s, s - self.P * math.cos(psi)

    def slide(self, phi, psi):
        return self.H * math.cos(phi - psi) - self.P * math.sin(psi)

    def slide_gradient(self, phi, psi):
        s = self.H * math.sin(phi - psi)
        return -s, s - self.P * math.cos(psi)

    def leaning_angle(self, psi):
        """phi with g(phi, psi) = 0: the angle of a domino leaning on one at psi."""
        return psi + math.asin((self.P * math.cos(psi) - self.T) / self.H)

    def gravity_moment(self, phi):
        """Gravity's moment about the pivot per unit mass: the centre is at (-T/2, H/2) in the pivot frame."""
        return -GRAVITY * (0.5 * self.T * math.cos(phi) - 0.5 * self.H * math.sin(phi))

    def inertia(self):
        """Moment of inertia about the pivot edge per unit mass."""
        return (self.T ** 2 + self.H ** 2) / 3.


def contact_rows(row, phi, omega, signs):
    """Rows of grad g_i (G), of the generalized contact force's direction (A) and g_i'' - G phi'' (h)."""
    n = len(phi)
    G = np.zeros((n - 1, n))
    A = np.zeros((n - 1, n))
    h = np.zeros(n - 1)
    for i in range(n - 1):
        gp, gq = row.gap_gradient(phi[i], phi[i + 1])
        sp, sq = row.slide_gradient(phi[i], phi[i + 1])
        hpp, hpq, hqq = row.gap_hessian(phi[i], phi[i + 1])
        G[i, i], G[i, i + 1] = gp, gq
        A[i, i], A[i, i + 1] = gp - row.mu * signs[i] * sp, gq - row.mu * signs[i] * sq
        h[i] = hpp * omega[i] ** 2 + 2 * hpq * omega[i] * omega[i + 1] + hqq * omega[i + 1] ** 2
    return G, A, h


def sliding_signs(row, phi, omega):
    signs = []
    for i in range(len(phi) - 1):
        sp, sq = row.slide_gradient(phi[i], phi[i + 1])
        rate = sp * omega[i] + sq * omega[i + 1]
        signs.append(1.0 if rate >= 0 else -1.0)
    return signs


def saddle_solve(inertia, A, G, rhs_top, rhs_bottom):
    """Solves [I 1, -A^T; G, 0] [x; lambda] = [rhs_top; rhs_bottom]."""
    n, m = len(rhs_top), len(rhs_bottom)
    K = np.zeros((n + m, n + m))
    K[:n, :n] = inertia * np.eye(n)
    K[:n, n:] = -A.T
    K[n:, :n] = G
    x = np.linalg.solve(K, np.concatenate([rhs_top, rhs_bottom]))
    return x[:n], x[n:]


def acceleration(row, phi, omega, signs, forces=None):
    gravity = np.array([row.gravity_moment(p) for p in phi])
    if len(phi) == 1:
        return gravity / row.inertia()
    G, A, h = contact_rows(row, phi, omega, signs)
    alpha, lam = saddle_solve(row.inertia(), A, G, gravity, -h)
    if forces is not None:
        forces.extend(lam)
    return alpha


def floor_ratio(row, phi, centre_change, contact_values, signs):
    """The largest |F_x| / F_z of what the floor gives the pivot edges (per unit mass): centre_change[j]
    is domino j's centre acceleration less gravity (or its velocity jump at a strike), contact_values
    the contact forces (impulses), which act on domino i at its corner and on i + 1 at its face. The
    fixed pivots need a floor friction coefficient above it; inf where a pivot would lift."""
    ratio = 0.0
    for j in range(len(phi)):
        floor = np.array(centre_change[j], dtype=float)
        for i, lam in enumerate(contact_values):
            if j in (i, i + 1):
                psi = phi[i + 1]
                on_corner = lam * (np.array([-math.cos(psi), math.sin(psi)])
                                   - row.mu * signs[i] * np.array([math.sin(psi), math.cos(psi)]))
                floor -= on_corner if j == i else -on_corner
        ratio = max(ratio, abs(floor[0]) / floor[1] if floor[1] > 0 else math.inf)
    return ratio


def centre_rate(row, angle):
    """d(centre)/d(phi) and the centre relative to the pivot: the centre is at (-T/2, H/2) in the pivot frame."""
    a, b, c, s = -0.5 * row.T, 0.5 * row.H, math.cos(angle), math.sin(angle)
    return np.array([-a * s + b * c, -a * c - b * s]), np.array([a * c + b * s, -a * s + b * c])


def pivot_friction_demand(row, phi, omega):
    """Floor friction the fixed pivots need between strikes (floor_ratio of the forces)."""
    signs = sliding_signs(row, phi, omega)
    forces = []
    alpha = acceleration(row, phi, omega, signs, forces)
    change = []
    for j, angle in enumerate(phi):
        rate, centre = centre_rate(row, angle)
        change.append(rate * alpha[j] - centre * omega[j] ** 2 + np.array([0.0, GRAVITY]))
    return floor_ratio(row, phi, change, forces, signs)


def project(row, phi, omega):
    """Back onto g_i = 0 and g_i' = 0, from the front domino backwards (each leans on the next)."""
    for i in range(len(phi) - 2, -1, -1):
        phi[i] = row.leaning_angle(phi[i + 1])
        gp, gq = row.gap_gradient(phi[i], phi[i + 1])
        omega[i] = -gq / gp * omega[i + 1]


def strike(row, phi, omega):
    """The completely inelastic strike of the front domino on the next one (at rest, upright)."""
    phi = np.append(phi, 0.0)
    before = np.append(omega, 0.0)
    signs = sliding_signs(row, phi, before)
    for _ in range(10):  # the friction impulses' signs are those of the sliding after the strike
        G, A, _ = contact_rows(row, phi, before, signs)
        after, impulses = saddle_solve(row.inertia(), A, G, row.inertia() * before, np.zeros(len(phi) - 1))
        new_signs = sliding_signs(row, phi, after)
        if new_signs == signs:
            break
        signs = new_signs
    if np.any(impulses < 0):
        sys.exit("leaning_train: a strike pulls two dominoes together (impulse %s): the model does not hold"
                 % impulses)
    jumps = [centre_rate(row, angle)[0] * (after[j] - before[j]) for j, angle in enumerate(phi)]
    return phi, after, floor_ratio(row, phi, jumps, impulses, signs)


def rk4_step(row, phi, omega, dt):
    signs = sliding_signs(row, phi, omega)

    def rate(p, w):
        return w, acceleration(row, p, w, signs)

    k1 = rate(phi, omega)
    k2 = rate(phi + 0.5 * dt * k1[0], omega + 0.5 * dt * k1[1])
    k3 = rate(phi + 0.5 * dt * k2[0], omega + 0.5 * dt * k2[1])
    k4 = rate(phi + dt * k3[0], omega + dt * k3[1])
    phi = phi + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
    omega = omega + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    project(row, phi, omega)
    return phi, omega


def landing(row, tilt, omega0, floor_gap):
    """Domino 1 released floor_gap above the floor: free flight (constant spin) until its pivot edge
    lands, then a plastic landing on that edge that keeps the angular momentum about it. Returns the
    time, the angle and the angular velocity after the landing."""
    if floor_gap <= 0:
        return 0.0, tilt, omega0
    flight = math.sqrt(2 * floor_gap / GRAVITY)
    phi = tilt + omega0 * flight
    lever = -0.5 * row.T * math.cos(phi) + 0.5 * row.H * math.sin(phi)  # centre ahead of the pivot, along x
    return flight, phi, omega0 + lever * GRAVITY * flight / row.inertia()


def simulate(row, count, tilt, omega0, floor_gap, end_time, threshold, dt):
    """Integrates the train; returns each domino's threshold time (None if never) and a log of strikes."""
    t, start, omega_start = landing(row, tilt, omega0, floor_gap)
    phi, omega = np.array([start]), np.array([omega_start])
    initial = [tilt] + [0.0] * (count - 1)
    reached = [None] * count
    strikes, smallest_force, largest_demand = [], math.inf, 0.0
    while t < end_time and phi[-1] < 0.5 * math.pi:
        next_phi, next_omega = rk4_step(row, phi, omega, dt)
        step = dt
        front = len(phi) - 1
        if len(phi) < count and row.gap(next_phi[front], 0.0) < 0:
            # The front corner reaches the next domino within the step: bisect the step to the strike.
            low, high = 0.0, dt
            for _ in range(40):
                mid = 0.5 * (low + high)
                trial, _ = rk4_step(row, phi, omega, mid)
                low, high = (mid, high) if row.gap(trial[front], 0.0) > 0 else (low, mid)
            step = high
            next_phi, next_omega = rk4_step(row, phi, omega, step)
            next_phi, next_omega, ratio = strike(row, next_phi, next_omega)
            phi = np.append(phi, 0.0)
            strikes.append((t + step, next_omega.copy(), ratio))
        for i in range(len(next_phi)):
            if reached[i] is None and next_phi[i] - initial[i] >= threshold:
                old = phi[i] - initial[i] if i < len(phi) else 0.0
                new = next_phi[i] - initial[i]
                reached[i] = t + step * (threshold - old) / (new - old)
        phi, omega, t = next_phi, next_omega, t + step
        if reached[-1] is None:  # up to the last domino's threshold: the times compared
            largest_demand = max(largest_demand, pivot_friction_demand(row, phi, omega))
        if len(phi) > 1:
            forces = []
            acceleration(row, phi, omega, sliding_signs(row, phi, omega), forces)
            smallest_force = min(smallest_force, min(forces))
            if row.slide(phi[-2], phi[-1]) > row.H:
                break  # the front corner passes the top of the next domino: the train model ends
    return reached, strikes, smallest_force, largest_demand, t


def front_speed(row, reached):
    """Mean speed of the front from domino 2 to the last: pitch x (count - 2) / (t_last - t_2)."""
    if len(reached) < 3 or reached[1] is None or reached[-1] is None:
        return None
    return row.P * (len(reached) - 2) / (reached[-1] - reached[1])


def measured_times(path, count, threshold):
    """First time each body's rotation_angle reaches the threshold in a percussion bodies.csv (bodies in
    the order of their numbers, which follow the material ids: domino 1 first)."""
    first = {}
    with open(path, newline="") as handle:
        for record in csv.DictReader(handle):
            body = int(float(record["body"]))
            first.setdefault(body, None)
            if first[body] is None and float(record["rotation_angle"]) >= threshold:
                first[body] = float(record["time"])
    if len(first) != count:
        sys.exit("leaning_train: %s has %d bodies, --count is %d" % (path, len(first), count))
    return [first[body] for body in sorted(first)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--domino", type=float, nargs=2, default=(0.008, 0.048), metavar=("T", "H"))
    parser.add_argument("--pitch", type=float, default=0.03)
    parser.add_argument("--tilt", type=float, default=15.0, help="domino 1's initial tilt [deg]")
    parser.add_argument("--omega", type=float, default=2.0, help="domino 1's initial angular velocity [rad/s]")
    parser.add_argument("--floor-gap", type=float, default=1e-4, help="height of domino 1's pivot edge at t = 0 [m]")
    parser.add_argument("--friction", type=float, default=0.3, help="Coulomb coefficient between dominoes")
    parser.add_argument("--end-time", type=float, default=0.4)
    parser.add_argument("--threshold", type=float, default=0.05, help="angle that marks a domino's start [rad]")
    parser.add_argument("--step", type=float, default=2e-5, help="Runge-Kutta step [s] (the times agree to 1e-5 s from 4e-5 to 5e-6)")
    parser.add_argument("--compare", help="a percussion bodies.csv to compare with")
    parser.add_argument("--tolerance", type=float, help="with --compare: largest difference / model interval")
    parser.add_argument("--speed-tolerance", type=float,
                        help="with --compare: largest relative difference of the front speed from domino 2 on")
    args = parser.parse_args()

    row = Row(args.domino[0], args.domino[1], args.pitch, args.friction)
    reached, strikes, smallest_force, demand, t = simulate(row, args.count, math.radians(args.tilt), args.omega,
                                                   args.floor_gap, args.end_time, args.threshold, args.step)
    print("leaning train: %d dominoes T = %g m, H = %g m, pitch %g m, mu = %g; integrated to %.4f s"
          % (args.count, row.T, row.H, row.P, row.mu, t))
    for time, omega, ratio in strikes:
        print("  strike at %.5f s: angular velocities after it %s rad/s; floor friction the fixed pivots need"
              " (impulses) %.2f" % (time, " ".join("%.3f" % w for w in omega), ratio))
    print("  smallest contact force per unit mass between strikes: %.4g (must be >= 0)" % smallest_force)
    print("  largest floor friction the fixed pivots need until the last domino's threshold: %.3g (the model"
          " holds on a floor with a larger coefficient)" % demand)
    measured = measured_times(args.compare, args.count, args.threshold) if args.compare else None
    print("domino  model t [s]  interval [s]  front speed [m/s]" + ("  percussion t [s]  difference / interval"
                                                                    if measured else ""))
    worst = 0.0
    for i, time in enumerate(reached):
        interval = time - reached[i - 1] if i > 0 and time is not None and reached[i - 1] is not None else None
        line = "%6d  %11s  %12s  %17s" % (i + 1, "%.5f" % time if time is not None else "-",
                                         "%.5f" % interval if interval else "-",
                                         "%.4f" % (row.P / interval) if interval else "-")
        if measured:
            other = measured[i]
            share = abs(other - time) / interval if interval and other is not None else None
            if interval and other is None:
                share = math.inf
            if share is not None:
                worst = max(worst, share)
            line += "  %16s  %21s" % ("%.5f" % other if other is not None else "-",
                                       "%.3f" % share if share is not None else "-")
        print(line)
    speed = front_speed(row, reached)
    print("front speed from domino 2 to %d: model %s m/s" % (args.count, "%.4f" % speed if speed else "-"), end="")
    failed = False
    if measured:
        other = front_speed(row, measured)
        difference = (other - speed) / speed if speed and other else math.inf
        print(", percussion %s m/s (%+.2f %%)" % ("%.4f" % other if other else "-", 100 * difference), end="")
        if args.speed_tolerance is not None and not abs(difference) <= args.speed_tolerance:
            failed = True
    print()
    if measured and args.tolerance is not None:
        print("largest difference: %.3f of the model's interval (tolerance %g)" % (worst, args.tolerance))
        failed = failed or not worst <= args.tolerance
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
