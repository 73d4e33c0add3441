#!/usr/bin/env python3
"""Exact stick-slip motion of a rigid block on a plane with Coulomb friction, pushed by a harmonic
tangential force, and its comparison with a percussion run (bodies.csv).

    rigid_block_stick_slip.py [--mu 0.3] [--ratio 1.5] [--period 1] [--g 9.81] [--end-time 3]
        [--run OUTPUT_DIR] [--body 0] [--stick-velocity 1e-3] [--velocity end|step]
        [--tolerance 0.01]

The problem (per unit mass, x the tangential displacement of the centre of mass, f = mu g):

    x'' = A sin(2 pi t / T) - r(t),   A = ratio * f,   x(0) = x'(0) = 0,
    stick:  x' = 0 and |A sin(2 pi t / T)| <= f            (r = A sin(2 pi t / T)),
    slip:   r = f sign(x'), from the time |A sin| exceeds f (direction: the sign of the force)
            until x' comes back to 0; then stick if |A sin| <= f there, else slip the other way.

Each phase has a closed form (slip from t_b at rest, direction s):
    v(t) = (A/w)(cos w t_b - cos w t) - s f (t - t_b)
    x(t) = x_b + (A/w) cos(w t_b) (t - t_b) - (A/w^2)(sin w t - sin w t_b) - s f (t - t_b)^2 / 2
and the event times (slip onset: |sin w t| = f/A on its rising side; slip end: v = 0) are found
analytically (onset) or by bisection to round-off on the closed form (end of slip).

With --run, the run's bodies.csv is compared with it. The centre of mass's displacement is not a
column of bodies.csv: it is rebuilt from the mean velocity with the scheme's own position update,
x_{k+1} = x_k + h ((1 - theta) v_k + theta v_{k+1}), which for the Moreau-Jean theta-scheme holds
exactly for the mass-weighted mean (q_{k+1} - q_k = h v_{k+theta} at every DoF; theta, h and the
scheme are read from OUTPUT_DIR/parameters.prm). If the run has probes.csv, the displacement of
probe 1 (put it at the centroid) is printed beside it as a check.

Stick detection: a time is "stick" where |v| < stick-velocity x (the exact largest sliding speed)
(default 1e-3). v is the end-of-step velocity v_k of bodies.csv (--velocity end, the default) or the
step's displacement rate v_{k+theta} = (x_{k+1} - x_k)/h placed at t_k + theta h (--velocity step).
For theta > 1/2 they differ after a slip stops: the Fremond law holds u_{k+theta} = 0, so v_{k+1} =
-(1 - theta)/theta v_k decays by alternating while the block does not move (the end velocity sees
the stop a few steps late; at theta = 1/2 the alternation would not decay at all).
The same detector is applied to the exact solution (its |v| crosses the threshold slightly after
the onset of slip, where v grows like (t - t_onset)^2, and just before the end of slip), so the
comparison measures the scheme, not the detector; the exact event times are those of the phase
table (at the default threshold the detector's view of a stick ends 0.005 T after the onset). For each exact stick interval the simulated stick samples in its
window (from the middle of the slip before to the middle of the slip after) give the simulated
interval [first, last] (fragments and the covered fraction of the exact interval are printed:
chatter shows there). Errors, each checked against --tolerance:
  - interval boundaries: |t_sim - t_exact| / T (boundaries at the start and end of the run skipped);
  - stick positions: max |x_sim - x_exact| over the samples inside both intervals, divided by the
    exact slip distance per half period;
  - sliding speed: |max |v_sim| - max |v_exact|| / max |v_exact| for each slip between two sticks.
A run without any stick in the window of an exact stick interval fails ("missing"). Exit status: 0 if every error
is at most the tolerance, 1 otherwise, 2 for bad input. Function constants mu, ratio, period, g of
the run's parameters.prm are used unless given on the command line.
Only Python's standard library is needed.
"""
import argparse
import bisect
import csv
import math
import os
import re
import sys


# ----------------------------------------------------------------------------------------------
# Exact solution
# ----------------------------------------------------------------------------------------------
class Phase:
    """One stick or slip phase: t0 <= t <= t1, starting at rest at x0 (slip) or resting at x0."""

    def __init__(self, kind, t0, x0, direction=0):
        self.kind = kind          # "stick" or "slip"
        self.t0 = t0
        self.x0 = x0
        self.s = direction        # slip direction (+1/-1)
        self.t1 = None


class RigidBlock:
    def __init__(self, mu, ratio, period, g, end_time):
        self.f = mu * g
        self.A = ratio * self.f
        self.T = period
        self.w = 2.0 * math.pi / period
        self.end = end_time
        self.phases = []
        self._solve()
        self._ends = [p.t1 for p in self.phases]

    def force(self, t):
        return self.A * math.sin(self.w * t)

    def v(self, t):
        p = self.phase_at(t)
        if p.kind == "stick":
            return 0.0
        return self._slip_v(p, t)

    def x(self, t):
        p = self.phase_at(t)
        if p.kind == "stick":
            return p.x0
        return self._slip_x(p, t)

    def phase_at(self, t):
        i = bisect.bisect_left(self._ends, t)
        return self.phases[min(i, len(self.phases) - 1)]

    def _slip_v(self, p, t):
        A, w, f = self.A, self.w, self.f
        return (A / w) * (math.cos(w * p.t0) - math.cos(w * t)) - p.s * f * (t - p.t0)

    def _slip_x(self, p, t):
        A, w, f = self.A, self.w, self.f
        d = t - p.t0
        return (p.x0 + (A / w) * math.cos(w * p.t0) * d
                - (A / w ** 2) * (math.sin(w * t) - math.sin(w * p.t0)) - p.s * f * d * d / 2)

    def _next_onset(self, t):
        """First time >= t at which |A sin(w t)| rises through f (None if A <= f)."""
        if self.A <= self.f:
            return None
        phi1 = math.asin(self.f / self.A)
        phi = self.w * t
        k = math.ceil((phi - phi1) / math.pi - 1e-12)
        return (phi1 + k * math.pi) / self.w

    def _slip_end(self, p):
        """First time after p.t0 at which the slip velocity returns to 0 (bisection)."""
        dt = self.T / 20000.0
        a = p.t0
        b = a + dt
        while p.s * self._slip_v(p, b) > 0.0:
            a, b = b, b + dt
            if b > self.end + 2 * self.T:
                return None
        for _ in range(200):
            m = 0.5 * (a + b)
            if m <= a or m >= b:
                break
            if p.s * self._slip_v(p, m) > 0.0:
                a = m
            else:
                b = m
        return b

    def _solve(self):
        p = Phase("stick", 0.0, 0.0)
        while True:
            self.phases.append(p)
            if p.kind == "stick":
                t1 = self._next_onset(p.t0)
                if t1 is None or t1 >= self.end:
                    p.t1 = self.end
                    return
                p.t1 = t1
                s = 1 if self.force(t1) > 0 else -1
                p = Phase("slip", t1, p.x0, s)
            else:
                t1 = self._slip_end(p)
                if t1 is None or t1 >= self.end:
                    p.t1 = self.end
                    return
                p.t1 = t1
                x1 = self._slip_x(p, t1)
                F = self.force(t1)
                if abs(F) <= self.f:
                    p = Phase("stick", t1, x1)
                else:
                    p = Phase("slip", t1, x1, 1 if F > 0 else -1)

    def peak_speed(self, p):
        """Largest |v| of a slip phase: at its ends or where the acceleration A sin(w t) - s f
        vanishes (phases asin(s f / A) and pi - asin(s f / A), modulo 2 pi)."""
        cands = [p.t0, p.t1]
        base = math.asin(max(-1.0, min(1.0, p.s * self.f / self.A)))
        k0 = math.floor(self.w * p.t0 / (2 * math.pi)) - 1
        for k in range(k0, k0 + 4 + int((p.t1 - p.t0) / self.T)):
            for phi in (base, math.pi - base):
                t = (phi + 2 * math.pi * k) / self.w
                if p.t0 < t < p.t1:
                    cands.append(t)
        return max(abs(self._slip_v(p, t)) for t in cands)


def threshold_intervals(times, speed, thr, exact_fn=None):
    """Maximal intervals where speed < thr. With samples (times, speed): crossing times by linear
    interpolation between samples. With exact_fn: the crossings of the exact |v| by bisection."""
    out = []
    start = times[0] if speed[0] < thr else None
    for i in range(1, len(times)):
        below_prev, below = speed[i - 1] < thr, speed[i] < thr
        if below_prev == below:
            continue
        t0, t1 = times[i - 1], times[i]
        if exact_fn is None:
            tc = t0 + (thr - speed[i - 1]) / (speed[i] - speed[i - 1]) * (t1 - t0)
        else:
            a, b = t0, t1
            for _ in range(100):
                m = 0.5 * (a + b)
                if (exact_fn(m) < thr) == below_prev:
                    a = m
                else:
                    b = m
            tc = 0.5 * (a + b)
        if below:
            start = tc
        else:
            out.append((start, tc))
            start = None
    if start is not None:
        out.append((start, times[-1]))
    return out


# ----------------------------------------------------------------------------------------------
# Reading a run
# ----------------------------------------------------------------------------------------------
def read_parameters(path):
    """The entries of a deal.II parameter file as {'Section/Entry': value}."""
    entries, stack = {}, []
    with open(path) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.match(r"subsection\s+(.*)$", line)
            if m:
                stack.append(m.group(1).strip())
                continue
            if line == "end":
                stack.pop()
                continue
            m = re.match(r"set\s+(.*?)\s*=\s*(.*)$", line)
            if m:
                entries["/".join(stack + [m.group(1)])] = m.group(2).strip()
    return entries


def function_constants(entries):
    out = {}
    for item in entries.get("Function constants", "").split(","):
        if "=" in item:
            k, v = item.split("=", 1)
            try:
                out[k.strip()] = float(v)
            except ValueError:
                pass
    return out


def read_run(directory, body):
    entries = read_parameters(os.path.join(directory, "parameters.prm"))
    scheme = entries.get("Time integration/Scheme", "Moreau-Jean Fremond")
    theta = float(entries.get("Time integration/Theta", "0.5"))
    times, vel = [], []
    with open(os.path.join(directory, "bodies.csv")) as fh:
        for row in csv.DictReader(fh):
            if int(row["body"]) != body:
                continue
            times.append(float(row["time"]))
            vel.append(float(row["mean_velocity_x"]))
    if len(times) < 2:
        raise SystemExit("%s/bodies.csv: no rows for body %d" % (directory, body))
    if not scheme.startswith("Moreau-Jean"):
        print("note: scheme '%s': the centre of mass is rebuilt with the trapezoidal rule "
              "(exact only for the Moreau-Jean theta-scheme)" % scheme)
        theta = 0.5
    x = [0.0]
    for k in range(1, len(times)):
        h = times[k] - times[k - 1]
        x.append(x[-1] + h * ((1 - theta) * vel[k - 1] + theta * vel[k]))
    probe = None
    ppath = os.path.join(directory, "probes.csv")
    if os.path.exists(ppath):
        probe = {}
        with open(ppath) as fh:
            for row in csv.DictReader(fh):
                if row["probe"] == "1":
                    probe[int(row["step"])] = float(row["u_x"])
    return entries, scheme, theta, times, vel, x, probe


# ----------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mu", type=float)
    ap.add_argument("--ratio", type=float, help="F0 / (mu m g)")
    ap.add_argument("--period", type=float, help="T [s]")
    ap.add_argument("--g", type=float)
    ap.add_argument("--end-time", type=float, help="default: the run's end time, else 3 T")
    ap.add_argument("--run", help="a percussion output directory (bodies.csv, parameters.prm)")
    ap.add_argument("--body", type=int, default=0)
    ap.add_argument("--stick-velocity", type=float, default=1e-3,
                    help="stick: |v| below this times the exact largest sliding speed")
    ap.add_argument("--velocity", choices=("end", "step"), default="end",
                    help="the velocity the detector and the speed comparison use: 'end' the "
                    "end-of-step velocity v_k of bodies.csv (default), 'step' the step's mean "
                    "(1 - theta) v_k + theta v_{k+1} = (x_{k+1} - x_k) / h, placed at t_k + theta h")
    ap.add_argument("--tolerance", type=float, default=0.01)
    args = ap.parse_args()

    run = None
    consts = {}
    if args.run:
        try:
            run = read_run(args.run, args.body)
        except (OSError, KeyError, ValueError) as e:
            print("error: cannot read the run in %s: %s" % (args.run, e), file=sys.stderr)
            return 2
        consts = function_constants(run[0])

    def pick(name, value, default):
        if value is not None:
            return value
        return consts.get(name, default)

    mu = pick("mu", args.mu, 0.3)
    ratio = pick("ratio", args.ratio, 1.5)
    T = pick("period", args.period, 1.0)
    g = pick("g", args.g, 9.81)
    end = args.end_time if args.end_time is not None else (run[3][-1] if run else 3 * T)
    if mu <= 0 or T <= 0 or g <= 0 or ratio <= 0 or end <= 0:
        print("error: mu, ratio, period, g and the end time must be positive", file=sys.stderr)
        return 2

    ex = RigidBlock(mu, ratio, T, g, end)
    slips = [p for p in ex.phases if p.kind == "slip"]
    vmax = max((ex.peak_speed(p) for p in slips), default=0.0)
    dist = max((abs(ex._slip_x(p, p.t1) - p.x0) for p in slips if p.t1 < end), default=0.0)
    print("rigid block: mu = %g, g = %g, F0 = %g mu m g (F0/m = %g m/s^2), T = %g s, end %g s"
          % (mu, g, ratio, ex.A, T, end))
    print("exact phases (t in units of T, x in m):")
    print("  %-5s %12s %12s %14s %14s %12s" % ("phase", "t_start/T", "t_end/T", "x_start", "x_end",
                                               "max|v| m/s"))
    for p in ex.phases:
        xe = p.x0 if p.kind == "stick" else ex._slip_x(p, p.t1)
        vm = 0.0 if p.kind == "stick" else ex.peak_speed(p)
        print("  %-5s %12.6f %12.6f %14.8f %14.8f %12.6f" % (p.kind, p.t0 / T, p.t1 / T, p.x0, xe, vm))
    print("slip distance per half period D = %.8f m, largest sliding speed %.6f m/s" % (dist, vmax))
    if ratio <= 1:
        print("(F0 <= mu m g: the block never slips)")
    if run is None:
        return 0
    if not slips or dist == 0.0:
        print("error: the exact solution has no complete slip before the end; nothing to compare",
              file=sys.stderr)
        return 2

    entries, scheme, theta, times, vel, x, probe = run
    h = times[1] - times[0]
    n = sum(1 for t in times if t <= end + 1e-9 * T)  # --end-time may cut the run short
    times, vel, x = times[:n], vel[:n], x[:n]
    if args.velocity == "step":
        # one sample per step: the displacement rate of the step, at t_k + theta h
        vel = [(x[k + 1] - x[k]) / (times[k + 1] - times[k]) for k in range(len(times) - 1)]
        x = [(1 - theta) * x[k] + theta * x[k + 1] for k in range(len(times) - 1)]
        times = [times[k] + theta * (times[k + 1] - times[k]) for k in range(len(times) - 1)]
        probe = None
    thr = args.stick_velocity * vmax
    print("\nrun %s: %s, theta = %g, h = %g s (%d steps per period), %d steps"
          % (args.run, scheme, theta, h, round(T / h), len(times) - 1))
    if probe:
        dev = max(abs(probe[k] - x[k]) for k in range(len(times)) if k in probe)
        print("centre of mass rebuilt from the mean velocity vs probe 1's u_x: largest difference "
              "%.3e m (%.2e D)" % (dev, dev / dist))
    print("stick detector: |v| < %.3e m/s (%g x the exact largest sliding speed), v = %s"
          % (thr, args.stick_velocity, "the end-of-step velocity v_k" if args.velocity == "end"
             else "the step's displacement rate v_{k+theta}"))

    fine = [end * i / 200000 for i in range(200001)]
    e_int = threshold_intervals(fine, [abs(ex.v(t)) for t in fine], thr, lambda t: abs(ex.v(t)))
    s_int = threshold_intervals(times, [abs(v) for v in vel], thr)
    t_first, t_last = times[0], times[-1]

    worst = {"boundary": 0.0, "position": 0.0, "speed": 0.0}
    failed_missing = False
    print("\nstick intervals (exact as seen by the detector; t in units of T; position errors / D):")
    print("  %3s %10s %10s %10s %10s %9s %9s %5s %8s %10s %10s" % (
        "#", "start ex", "end ex", "start sim", "end sim", "err st", "err end", "frag", "covered",
        "x exact", "err x/D"))
    min_cover = 1.0
    for i, (a, b) in enumerate(e_int):
        lo = t_first if i == 0 else 0.5 * (e_int[i - 1][1] + a)
        hi = t_last if i == len(e_int) - 1 else 0.5 * (b + e_int[i + 1][0])
        pieces = [(max(s, lo), min(e, hi)) for (s, e) in s_int if e > lo and s < hi]
        if not pieces:
            failed_missing = True
            min_cover = 0.0
            print("  %3d %10.6f %10.6f %10s %10s %9s %9s %5d %8s %10.6f %10s" % (
                i, a / T, b / T, "-", "-", "missing", "missing", 0, "0", ex.x(0.5 * (a + b)), "-"))
            continue
        sa, sb = pieces[0][0], pieces[-1][1]
        covered = sum(max(0.0, min(e, b) - max(s, a)) for (s, e) in pieces) / max(b - a, 1e-300)
        min_cover = min(min_cover, covered)
        err_a = None if a <= t_first + 1e-12 else abs(sa - a) / T
        err_b = None if b >= t_last - 1e-12 else abs(sb - b) / T
        for e in (err_a, err_b):
            if e is not None:
                worst["boundary"] = max(worst["boundary"], e)
        ks = [k for k in range(len(times)) if max(a, sa) <= times[k] <= min(b, sb)]
        errx = max((abs(x[k] - ex.x(times[k])) for k in ks), default=float("nan")) / dist
        if ks:
            worst["position"] = max(worst["position"], errx)
        fmt = lambda e: "-" if e is None else "%.2e" % e
        print("  %3d %10.6f %10.6f %10.6f %10.6f %9s %9s %5d %8.4f %10.6f %10.2e" % (
            i, a / T, b / T, sa / T, sb / T, fmt(err_a), fmt(err_b), len(pieces), covered,
            ex.x(0.5 * (a + b)), errx))

    print("\nslips between stick intervals (largest |v|):")
    print("  %3s %10s %10s %12s %12s %10s" % ("#", "from/T", "to/T", "exact m/s", "sim m/s", "rel err"))
    for i in range(len(e_int) - 1):
        a, b = e_int[i][1], e_int[i + 1][0]
        if b >= t_last:
            continue
        pe = max(ex.peak_speed(p) for p in slips if p.t0 < b and p.t1 > a)
        vs = max((abs(vel[k]) for k in range(len(times)) if a <= times[k] <= b), default=0.0)
        err = abs(vs - pe) / pe
        worst["speed"] = max(worst["speed"], err)
        print("  %3d %10.6f %10.6f %12.6f %12.6f %10.2e" % (i, a / T, b / T, pe, vs, err))

    xs = [x[k] for k in range(len(times))]
    print("\nsimulated range of the centre of mass: [%.6f, %.6f] m (exact [%.6f, %.6f] m)" % (
        min(xs), max(xs), min(ex.x(t) for t in fine), max(ex.x(t) for t in fine)))
    print("largest errors: interval boundaries %.3e T, stick positions %.3e D, sliding speed %.3e"
          % (worst["boundary"], worst["position"], worst["speed"]))
    print("largest simulated speed %.6f m/s (exact %.6f); smallest fraction of an exact stick "
          "interval detected as stick %.4f" % (max(abs(v) for v in vel), vmax, min_cover))
    if failed_missing:
        print("FAIL: the run misses a stick interval of the exact solution")
        return 1
    bad = [k for k, v in worst.items() if not v <= args.tolerance]
    if bad:
        print("FAIL: %s above the tolerance %g" % (", ".join(bad), args.tolerance))
        return 1
    print("PASS: every error within the tolerance %g" % args.tolerance)
    return 0


if __name__ == "__main__":
    sys.exit(main())
