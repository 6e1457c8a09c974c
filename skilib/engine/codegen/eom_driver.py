"""The eq. 101 driver of the generated Python/numba kernels (a template, not imported).

``skilib.engine.codegen.kernel`` appends ``eom`` below to the generated ``generated``
function (and decorates both with ``numba.njit`` for the numba backend): it assembles the
augmented matrix of eq. 101 from the generated terms, solves it, and leaves in ``pw`` the
power Q_f·q̇ of each traced force, −λ_r (Cq q̇)_r of each row's constraint force and
λ_r Ct_r (§3.5: Qc = −Cqᵀλ).

A row f of QF with ``LOAD_ROW[f]`` = k ≥ 0 is b, the generalized force per unit multiplier of
a ``LoadFriction`` on row k (Q_f = b λ_k): column n + k of the matrix gains −b, and after the
solve the row is scaled by λ_k, so that QF holds every force's Q_f and pw[f] = Q_f·q̇.
"""
import numpy as np

LOAD_ROW = None  # provided by the generated module (an int64 array, one entry per row of QF)
generated = None  # provided by the generated module

def eom(t, q, qd, c, p, alpha, beta, Qx, M, Qv, C, Cq, Cvel, Cquad, QF, K, rhs, pw):
    generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF)
    n = q.shape[0]
    m = C.shape[0]
    nf = QF.shape[0]
    for i in range(n):
        for j in range(n):
            K[i, j] = M[i, j]
        s = Qv[i] + Qx[i]
        for f in range(nf):
            if LOAD_ROW[f] < 0:
                s += QF[f, i]
        rhs[i] = s
    for r in range(m):
        for j in range(n):
            K[n + r, j] = Cq[r, j]
            K[j, n + r] = Cq[r, j]
        rhs[n + r] = -Cquad[r] - 2.0 * alpha * Cvel[r] - beta * beta * C[r]
    for f in range(nf):  # Q_f = b λ_k: the column of row k gains −b
        k = LOAD_ROW[f]
        if k >= 0:
            for i in range(n):
                K[i, n + k] -= QF[f, i]
    x = np.linalg.solve(K, rhs)
    for f in range(nf):
        k = LOAD_ROW[f]
        if k >= 0:
            for j in range(n):
                QF[f, j] *= x[n + k]
        s = 0.0
        for j in range(n):
            s += QF[f, j] * qd[j]
        pw[f] = s
    for r in range(m):
        s = 0.0
        for j in range(n):
            s += Cq[r, j] * qd[j]
        pw[nf + r] = -x[n + r] * s
        pw[nf + m + r] = x[n + r] * (Cvel[r] - s)
    return x
