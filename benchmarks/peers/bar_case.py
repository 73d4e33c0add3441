"""The 1D impacting bar the peer scripts solve (doc/theory.md reference problem 1;
applications/impacting_bar/impacting_bar_1d.prm), and how they report it: the figures of
benchmarks/impacting_bar/run.sh, from the fastest of several runs."""

L, S, E, RHO = 1.0, 3.14e-4, 210e9, 7800.0
V0, GAP = -0.1, 5e-5
N, H, T = 1000, 1.9272476e-7, 1.5e-3
C = (E / RHO) ** 0.5


def fastest(run, repeats):
    """The result (steps, seconds, E_end/E_0, contact steps) of the fastest of @p repeats calls of run()."""
    best = None
    for _ in range(repeats):
        result = run()
        if best is None or result[1] < best[1]:
            best = result
    return best


def report(scheme, result, repeats):
    """Prints the scheme, steps/s, E_end/E_0 and the contact-duration error against the exact 2L/c."""
    steps, seconds, ratio, contact_steps = result
    exact = 2 * L / C
    print(f'scheme                {scheme}')
    print(f'steps/s (1 core)      {steps / seconds:10.0f}   ({steps} steps in {seconds:.4f} s, fastest of {repeats})')
    print(f'E_end/E_0             {ratio:10.6f}')
    error = 100 * (contact_steps * H - exact) / exact
    print(f'duration error        {error + 0.0 if abs(error) >= 5e-4 else 0.0:9.3f} %   '
          f'({contact_steps} contact steps, exact {exact / H:.1f})')
