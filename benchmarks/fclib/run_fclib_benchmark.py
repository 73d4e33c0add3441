#!/usr/bin/python3
"""Benchmark the percussion contact solvers (and, if installed, Siconos') on a folder of FCLIB files.

    benchmarks/fclib/run_fclib_benchmark.py [FOLDER] [--cli PATH] [--tolerance 1e-8]
        [--time-limit 60] [--solvers alart_curnier,nsgs] [--no-siconos] [--siconos-solvers NSN_AC,NSGS]

For every problem and every solver: solve from r = 0 at the tolerance on the FCLIB error measure
(the FCLIB/Siconos normalised residual, doc/contact_solvers.md), with a wall-clock cap per (problem, solver); time = solve only
(no file reading, no condensation). Prints a per-problem table, the ratio ours / Siconos per problem,
and per solver: fraction solved, median and worst time of the solved problems.

Ours run through the percussion-fclib command-line tool. Siconos (Debian python3-siconos, with
python3-h5py and python3-scipy; optional) runs in a child process per (problem, solver) so that the
time cap can be enforced; global files are condensed by percussion-fclib --write-local (the same
W = H^T M^-1 H, q = H^T M^-1 f + w as README.md), 2D problems are embedded exactly in 3D (an extra
decoupled tangential direction with zero free velocity), as for the reference figures. Siconos'
result is scored with the same error measure, recomputed here in numpy.
This is a benchmark that prints a table, not a test: it asserts nothing.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_FOLDER = os.path.join(REPO, "tests", "data", "fclib")


def find_cli():
    for build in ("build-solvers", "build", "build-solvers-dev"):
        for root in (os.path.dirname(REPO), REPO):
            path = os.path.join(root, build, "applications", "percussion_fclib", "percussion-fclib")
            if os.path.exists(path):
                return path
    return None


# ---------------------------------------------------------------------------------------------
# Siconos side (child process)
# ---------------------------------------------------------------------------------------------

def read_local(path):
    """(dim, W as scipy CSR, q, mu) of a local FCLIB file (CSR W, as FCLIB and our writer store)."""
    import h5py
    import numpy as np
    import scipy.sparse as sp
    with h5py.File(path, "r") as f:
        g = f["fclib_local"]
        dim = int(g["spacedim"][0])
        m, n, nz = int(g["W/m"][0]), int(g["W/n"][0]), int(g["W/nz"][0])
        p, i, x = g["W/p"][:], g["W/i"][:], g["W/x"][:]
        if nz == -2:
            W = sp.csr_matrix((x[:p[m]], i[:p[m]], p), shape=(m, n))
        elif nz == -1:
            W = sp.csc_matrix((x[:p[n]], i[:p[n]], p), shape=(m, n)).tocsr()
        else:
            W = sp.coo_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n)).tocsr()
        q = g["vectors/q"][:].astype(float)
        mu = g["vectors/mu"][:].astype(float)
    return dim, W, q, mu


def embed_2d_in_3d(W, q, mu):
    """Exact 3D embedding: (N, T) -> (N, T, T2), T2 decoupled with W_T2T2 = W_TT and q_T2 = 0."""
    import numpy as np
    import scipy.sparse as sp
    nc = len(mu)
    coo = W.tocoo()
    rows = (coo.row // 2) * 3 + coo.row % 2
    cols = (coo.col // 2) * 3 + coo.col % 2
    diag = W.diagonal()
    extra = np.arange(nc) * 3 + 2
    values_t = diag[np.arange(nc) * 2 + 1]
    values_t = np.where(values_t > 0, values_t, 1.0)
    W3 = sp.coo_matrix((np.concatenate([coo.data, values_t]),
                        (np.concatenate([rows, extra]), np.concatenate([cols, extra]))),
                       shape=(3 * nc, 3 * nc)).tocsr()
    q3 = np.zeros(3 * nc)
    q3[np.arange(nc) * 3] = q[0::2]
    q3[np.arange(nc) * 3 + 1] = q[1::2]
    return W3, q3


def fclib_error(dim, W, q, mu, r):
    """The FCLIB / Siconos 4.4 error measure (README.md), vectorised."""
    import numpy as np
    u = W @ r + q
    nc = len(mu)
    R = r.reshape(nc, dim)
    U = u.reshape(nc, dim)
    ut = np.linalg.norm(U[:, 1:], axis=1)
    X = R - U
    X[:, 0] -= mu * ut
    t = np.linalg.norm(X[:, 1:], axis=1)
    xn = X[:, 0]
    Z = np.zeros_like(X)
    inside = t <= mu * xn
    polar = (mu * t <= -xn) & ~inside
    other = ~inside & ~polar
    Z[inside] = X[inside]
    zn = (mu * t + xn) / (mu * mu + 1.0)
    Z[other, 0] = zn[other]
    scale = np.where(t > 0, mu * zn / np.where(t > 0, t, 1.0), 0.0)
    Z[other, 1:] = X[other, 1:] * scale[other, None]
    absolute = np.sqrt(((R - Z) ** 2).sum())
    norm = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return absolute / norm if norm > 2.220446049250313e-16 else absolute


def siconos_one(path, solver, tolerance):
    import warnings
    import numpy as np
    import siconos.numerics as N
    warnings.simplefilter("ignore")
    dim, W, q, mu = read_local(path)
    W3, q3 = (W, q) if dim == 3 else embed_2d_in_3d(W, q, mu)
    W3.indices = W3.indices.astype(np.int64)
    W3.indptr = W3.indptr.astype(np.int64)
    problem = N.FrictionContactProblem(3, W3, q3, mu)
    ids = {"NSN_AC": N.SICONOS_FRICTION_3D_NSN_AC, "NSGS": N.SICONOS_FRICTION_3D_NSGS}
    options = N.SolverOptions(ids[solver])
    options.iparam[N.SICONOS_IPARAM_MAX_ITER] = 100000
    options.dparam[N.SICONOS_DPARAM_TOL] = tolerance
    r = np.zeros(3 * len(mu))
    u = np.zeros(3 * len(mu))
    start = time.perf_counter()
    N.fc3d_driver(problem, r, u, options)
    seconds = time.perf_counter() - start
    iterations = options.iparam[N.SICONOS_IPARAM_ITER_DONE]
    if dim == 2:
        r = np.column_stack([r[0::3], r[1::3]]).ravel()
    error = fclib_error(dim, W, q, mu, r)
    status = "converged" if error <= tolerance else "not_converged"
    print("%s,%d,%.3e,%.6g" % (status, iterations, error, seconds))


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------

def run_ours(cli, path, solver, tolerance, time_limit, write_local=None):
    command = [cli, path, "--solver", solver, "--tolerance", repr(tolerance), "--time-limit", repr(time_limit),
               "--max-iterations", "1000000"]
    if write_local:
        command += ["--write-local", write_local]
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=time_limit + 60)
    except subprocess.TimeoutExpired:
        return {"status": "TIMEOUT"}
    if out.returncode != 0:
        return {"status": "ERROR", "message": out.stderr.strip()}
    fields = out.stdout.strip().splitlines()[-1].split(",")
    return {"contacts": int(fields[1]), "status": fields[3], "iterations": int(fields[4]),
            "error": float(fields[5]), "seconds": float(fields[6])}


def run_siconos(path, solver, tolerance, time_limit):
    command = ["/usr/bin/python3", os.path.abspath(__file__), "--siconos-one", path, solver, repr(tolerance)]
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=time_limit)
    except subprocess.TimeoutExpired:
        return {"status": "TIMEOUT"}
    lines = [line for line in out.stdout.strip().splitlines() if line.count(",") == 3]
    if out.returncode != 0 or not lines:
        return {"status": "ERROR", "message": out.stderr.strip()[-300:]}
    status, iterations, error, seconds = lines[-1].split(",")
    return {"status": status, "iterations": int(iterations), "error": float(error), "seconds": float(seconds)}


def siconos_available():
    try:
        out = subprocess.run(["/usr/bin/python3", "-c", "import siconos.numerics, h5py, scipy, numpy"],
                             capture_output=True, timeout=60)
        return out.returncode == 0
    except Exception:
        return False


def is_global(path):
    import h5py
    with h5py.File(path, "r") as f:
        return "fclib_global" in f


def cell(result):
    if result["status"] == "converged":
        return "ok %.3gs" % result["seconds"]
    if result["status"] == "not_converged":
        return "FAIL err %.1e" % result["error"]
    return result["status"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", default=DEFAULT_FOLDER)
    parser.add_argument("--cli", default=None, help="path of percussion-fclib (default: looked up in build dirs)")
    parser.add_argument("--tolerance", type=float, default=1e-8)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per (problem, solver)")
    parser.add_argument("--solvers", default="alart_curnier,alart_curnier_pure,nsgs")
    parser.add_argument("--siconos-solvers", default="NSN_AC,NSGS")
    parser.add_argument("--no-siconos", action="store_true")
    parser.add_argument("--siconos-one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.siconos_one:
        siconos_one(args.siconos_one[0], args.siconos_one[1], float(args.siconos_one[2]))
        return 0

    cli = args.cli or find_cli()
    if not cli or not os.path.exists(cli):
        print("error: percussion-fclib not found; build it or pass --cli PATH", file=sys.stderr)
        return 1
    if not os.path.isdir(args.folder):
        print("error: no such folder: %s" % args.folder, file=sys.stderr)
        return 1
    files = sorted(f for f in os.listdir(args.folder) if f.endswith(".hdf5"))
    ours = args.solvers.split(",")
    use_siconos = not args.no_siconos and siconos_available()
    theirs = args.siconos_solvers.split(",") if use_siconos else []
    if not args.no_siconos and not use_siconos:
        print("# Siconos not available (apt-get install -y python3-siconos python3-h5py python3-scipy): ours only")

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in files:
            path = os.path.join(args.folder, name)
            local_path = path
            row = {}
            for k, solver in enumerate(ours):
                write = None
                if k == 0 and use_siconos and is_global(path):
                    local_path = os.path.join(tmp, "local-" + name)
                    write = local_path
                row[solver] = run_ours(cli, path, solver, args.tolerance, args.time_limit, write)
            for solver in theirs:
                row["siconos " + solver] = run_siconos(local_path, solver, args.tolerance, args.time_limit)
            results[name] = row
            print("# %-45s %s" % (name, "  ".join("%s: %s" % (s, cell(r)) for s, r in row.items())), flush=True)

    columns = ours + ["siconos " + s for s in theirs]
    print()
    print("Tolerance %g, start r = 0, cap %g s per (problem, solver), solve time only." % (args.tolerance, args.time_limit))
    header = ["file", "contacts"] + columns
    if theirs:
        header += ["%s / %s" % (ours[0], "siconos " + s) for s in theirs]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, row in results.items():
        contacts = next((r["contacts"] for r in row.values() if "contacts" in r), "")
        cells = [name, str(contacts)] + [cell(row[c]) for c in columns]
        for s in theirs:
            a, b = row[ours[0]], row["siconos " + s]
            if a["status"] == "converged" and b["status"] == "converged" and b["seconds"] > 0:
                cells.append("%.3g" % (a["seconds"] / b["seconds"]))
            else:
                cells.append("-")
        print("| " + " | ".join(cells) + " |")

    print()
    print("| solver | solved | fraction | median t (solved) [s] | worst t (solved) [s] |")
    print("|---|---|---|---|---|")
    for c in columns:
        times = [row[c]["seconds"] for row in results.values() if row[c]["status"] == "converged"]
        if times:
            print("| %s | %d / %d | %.0f%% | %.3g | %.3g |" % (c, len(times), len(results), 100.0 * len(times) / len(results),
                                                            statistics.median(times), max(times)))
        else:
            print("| %s | 0 / %d | 0%% | - | - |" % (c, len(results)))
    for s in theirs:
        both = [name for name, row in results.items()
                if row[ours[0]]["status"] == "converged" and row["siconos " + s]["status"] == "converged"]
        if both:
            a = statistics.median(results[n][ours[0]]["seconds"] for n in both)
            b = statistics.median(results[n]["siconos " + s]["seconds"] for n in both)
            print("\nOn the %d problems both solve: median %s %.3g s, siconos %s %.3g s, ratio %.3g"
                  % (len(both), ours[0], a, s, b, a / b))
    return 0


if __name__ == "__main__":
    sys.exit(main())
