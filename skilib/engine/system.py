"""A multibody system: bodies, constraints and forces assembled into eq. 101.

::

    [ M   Cqᵀ ] [ q̈ ]   [ Qe + Qv                         ]
    [ Cq   0  ] [ λ  ] = [ Qd − 2α(Cq q̇ + Ct) − β² C      ]      (Bruzzo 2012, eq. 101)

with M and Qv per body (eqs. 40–46, 84–92), Qe from the force elements (eqs. 80–83),
C, Cq, Ct and Qd (eqs. 93–97) from the constraint components.  The generalized
constraint force is Qc = −Cqᵀλ (§3.5, eq. 68).
"""
from __future__ import annotations

import numpy as np

from .constraints import EulerParameterNorm
from .validation import check_number
from .evaluation import Evaluation, power_vector
from .finite import nonfinite_error
from .errors import GimbalLockError, RedundantConstraintError, SingularSystemError
from .kinematics import Jet, State, stack

__all__ = ["MultibodySystem"]


class MultibodySystem:
    """Bodies, constraints and forces with the assembly of eq. 101.

    Coordinates are stacked body by body in the order of ``bodies``; constraint rows in
    the order of ``constraints``.
    """

    def __init__(self, bodies, constraints=(), forces=(), gimbal_tol: float = 1e-3):
        self.bodies = list(bodies)
        # every body in Euler parameters brings its normalization row (Haug 1989)
        self.constraints = list(constraints) + [EulerParameterNorm(b) for b in self.bodies
                                                if b.rotation.n == 4]
        self.forces = list(forces)
        self.gimbal_tol = check_number("gimbal_tol", gimbal_tol, positive=True, high=1.0)
        names = [b.name for b in self.bodies]
        if len(set(names)) != len(names):
            raise ValueError(f"body names must be unique, got {names}")
        cnames = [c.name for c in self.constraints]
        if len(set(cnames)) != len(cnames):
            raise ValueError(f"constraint names must be unique, got {cnames}")
        self._slices = {}
        k = 0
        for b in self.bodies:
            self._slices[id(b)] = slice(k, k + b.nq)
            k += b.nq
        self.nq = k
        self._rows = {}
        r = 0
        for c in self.constraints:
            for b in c.bodies:
                if b is not None and id(b) not in self._slices:
                    raise ValueError(f"constraint '{c.name}' uses body '{b.name}', which is not in the system")
            self._rows[c.name] = slice(r, r + c.n)
            r += c.n
        self.nc = r
        # rows that are velocity constraints B q̇ + b = 0 (skilib.engine.nonholonomic)
        mask = np.zeros(r, dtype=bool)
        for c in self.constraints:
            for k in c.velocity_rows:
                if not 0 <= k < c.n:
                    raise ValueError(f"constraint '{c.name}': velocity row {k} is not one of its {c.n} rows")
                mask[self._rows[c.name].start + k] = True
        self.velocity_mask = mask
        # forces linear in a row's multiplier (Coulomb friction on a constraint's load,
        # ``skilib.engine.load_friction``): a column of eq. 101's matrix each, resolved by name
        self.load_forces = [f for f in self.forces if hasattr(f, "per_load")]
        for f in self.load_forces:
            f.bind(self)
        #: indices of the holonomic rows C(q, t) = 0 and of the velocity rows B q̇ + b = 0
        self.holonomic_rows = np.flatnonzero(~mask)
        self.velocity_rows = np.flatnonzero(mask)
        if self.nc > self.nq:
            raise RedundantConstraintError(f"{self.nc} constraint rows for only {self.nq} coordinates")
        driven = {}
        for c in self.constraints:
            for b, kk in c.driven_coordinates:
                driven.setdefault(id(b), set()).add(kk)
        # bodies whose rotational coordinates are not all prescribed one by one must
        # keep away from the parametrization's singularity (ZXZ: sin θ = 0)
        self._gimbal_checked = [b for b in self.bodies if b.rotation.has_singularity
                                and not b.rotation.singularity_avoided({k - 3 for k in driven.get(id(b), ())})]

    # -- bookkeeping -----------------------------------------------------------------
    def slice(self, body) -> slice:
        try:
            return self._slices[id(body)]
        except KeyError:
            raise ValueError(f"body '{getattr(body, 'name', body)}' is not in this system") from None

    def rows(self, constraint) -> slice:
        name = constraint if isinstance(constraint, str) else constraint.name
        try:
            return self._rows[name]
        except KeyError:
            raise ValueError(f"no constraint named '{name}' in this system") from None

    def body(self, name: str):
        for b in self.bodies:
            if b.name == name:
                return b
        raise ValueError(f"no body named '{name}' in this system")

    def constraint(self, name: str):
        for c in self.constraints:
            if c.name == name:
                return c
        raise ValueError(f"no constraint named '{name}' in this system")

    @property
    def gimbal_checked(self) -> list:
        """Bodies whose rotation coordinates are free to reach their singularity (ZXZ θ = 0, π)."""
        return list(self._gimbal_checked)

    @property
    def dof(self) -> int:
        """Velocity degrees of freedom: nq minus every row, holonomic or not."""
        return self.nq - self.nc

    @property
    def position_dof(self) -> int:
        """Position degrees of freedom: nq minus the holonomic rows (velocity rows leave
        positions free: a knife edge can reach any place, only not sideways)."""
        return self.nq - len(self.holonomic_rows)

    @property
    def coordinate_labels(self) -> list:
        out = []
        for b in self.bodies:
            out += [f"{b.name}.{a}" for a in ("x", "y", "z") + tuple(b.rotation.labels)]
        return out

    @property
    def constraint_labels(self) -> list:
        return [lab for c in self.constraints for lab in c.row_labels()]

    def state(self, t, q, qd=None) -> State:
        q = np.asarray(q, dtype=float)
        return State(self, t, q, np.zeros(self.nq) if qd is None else np.asarray(qd, dtype=float))

    # -- terms of eq. 101 ------------------------------------------------------------
    def mass_matrix(self, q) -> np.ndarray:
        M = np.zeros((self.nq, self.nq), dtype=np.asarray(q).dtype if np.asarray(q).dtype == object else float)
        for b in self.bodies:
            sl = self.slice(b)
            M[sl, sl] = b.mass_matrix(q[sl])
        return M

    def quadratic_velocity(self, q, qd) -> np.ndarray:
        Qv = np.zeros(self.nq, dtype=np.asarray(q).dtype if np.asarray(q).dtype == object else float)
        for b in self.bodies:
            sl = self.slice(b)
            Qv[sl] = b.quadratic_velocity(q[sl], qd[sl])
        return Qv

    def force_contributions(self, t, q, qd, state=None) -> dict:
        """Generalized force of each force element, by name (eqs. 80–83)."""
        s = state if state is not None else self.state(t, q, qd)
        return {f.name: f.generalized(s) for f in self.forces}

    def generalized_forces(self, t, q, qd, state=None) -> np.ndarray:
        s = state if state is not None else self.state(t, q, qd)
        Q = np.zeros(self.nq)
        for f in self.forces:
            Q += f.generalized(s)
        return Q

    def constraint_jet(self, t, q, qd=None, state=None):
        """Jet of all constraint rows: val = C, J = Cq, t = Ct, vel = Ċ, quad = −Qd."""
        s = state if state is not None else self.state(t, q, qd)
        if not self.constraints:
            z = np.zeros(0)
            return Jet(z, np.zeros((0, self.nq)), z, z, z)
        return stack([c.jet(s) for c in self.constraints])

    def constraint_vector(self, q, t) -> np.ndarray:
        return self.constraint_jet(t, q).val

    def constraint_jacobian(self, q, t) -> np.ndarray:
        return self.constraint_jet(t, q).J

    def kinetic_energy(self, q, qd) -> float:
        return sum(b.kinetic_energy(q[self.slice(b)], qd[self.slice(b)]) for b in self.bodies)

    def gimbal_margin(self, q) -> float:
        """min over the checked bodies of (distance to singularity − gimbal_tol)."""
        m = np.inf
        for b in self._gimbal_checked:
            m = min(m, b.rotation.singularity_distance(q[self.slice(b)][3:]) - self.gimbal_tol)
        return m

    def gimbal_error(self, t, q) -> GimbalLockError:
        """The error naming the checked body closest to its rotation singularity."""
        b = min(self._gimbal_checked, key=lambda b: b.rotation.singularity_distance(q[self.slice(b)][3:]))
        th = q[self.slice(b)][3:]
        return GimbalLockError(
            f"body '{b.name}' reached the {b.rotation.name} singularity at t={t:.6g} s "
            f"(angles {np.round(th, 6).tolist()}); choose a body frame that keeps "
            "θ away from 0 and π, or use Euler parameters",
            body=b.name, t=float(t), angles=th,
        )

    def check_gimbal(self, t, q) -> None:
        if self._gimbal_checked and self.gimbal_margin(q) < 0:
            raise self.gimbal_error(t, q)

    def evaluate(self, t, q, qd, alpha=0.0, beta=0.0) -> Evaluation:
        """Solve eq. 101 at (t, q, q̇) and return it with every term it used (``Evaluation``)."""
        self.check_gimbal(t, q)
        q = np.asarray(q, dtype=float)
        qd = np.asarray(qd, dtype=float)
        s = self.state(t, q, qd)
        n, m = self.nq, self.nc
        # a load force's Q is known only after the solve: zero in the right-hand side, set below
        Qf = {f.name: (np.zeros(self.nq) if f in self.load_forces else f.generalized(s)) for f in self.forces}
        M = self.mass_matrix(q)
        Qv = self.quadratic_velocity(q, qd)
        K = np.zeros((n + m, n + m))
        K[:n, :n] = M
        rhs = np.empty(n + m)
        rhs[:n] = sum(Qf.values(), np.zeros(n)) + Qv
        c = self.constraint_jet(t, q, qd, state=s)
        if m:
            K[:n, n:] = c.J.T
            K[n:, :n] = c.J
            rhs[n:] = -c.quad - 2.0 * alpha * c.vel - beta * beta * c.val
        per_load = [(f, f.per_load(s)) for f in self.load_forces]
        for f, b in per_load:  # Q_f = b λ_k moves to the left: the column of row k gains −b
            K[:n, n + f.index] -= b
        try:
            x = np.linalg.solve(K, rhs)
        except np.linalg.LinAlgError:
            x = None
        if x is None or not np.all(np.isfinite(x)):  # a NaN or inf is named before any singularity
            raise (nonfinite_error(self, t, q, qd, forces=Qf, M=M, Qv=Qv, C=c.val, Cq=c.J, Cdot=c.vel, quad=c.quad)
                   or SingularSystemError(self.singular_message(t, q, K))) from None
        lam = x[n:]
        for f, b in per_load:
            f.check_load(t, lam)
            Qf[f.name] = b * lam[f.index]
        return Evaluation(t=t, q=q, qd=qd, alpha=alpha, beta=beta, qdd=x[:n], lam=lam, M=M, Qv=Qv, C=c.val,
                          Cq=c.J, Cdot=c.vel, quad=c.quad, forces=Qf, force_names=tuple(Qf),
                          powers=power_vector(Qf, qd, lam, c.J, c.vel))

    def accelerations(self, t, q, qd, alpha=0.0, beta=0.0):
        """Solve eq. 101 for (q̈, λ) at one instant."""
        e = self.evaluate(t, q, qd, alpha, beta)
        return e.qdd, e.lam

    def singular_message(self, t, q, K) -> str:
        """Why the augmented matrix K of eq. 101 is singular at (t, q): bodies at a rotation
        singularity, or the first linearly dependent constraint row."""
        n = self.nq
        msg = f"augmented matrix of eq. 101 is singular at t={t:.6g} s"
        bad = [b.name for b in self.bodies
               if b.rotation.singularity_distance(q[self.slice(b)][3:]) < 1e-8]
        if bad:
            msg += f"; bodies at their rotation singularity: {bad}"
        if self.nc:
            try:
                self.check_rank(q, t)
            except RedundantConstraintError as e:
                msg += f"; {e}"
        return msg

    def check_rank(self, q, t, tol: float = 1e-9) -> None:
        """Raise RedundantConstraintError naming the first row that depends on earlier ones."""
        Cq = self.constraint_jacobian(q, t)
        labels = self.constraint_labels
        scale = max(1.0, np.abs(Cq).max())
        basis = np.zeros((0, self.nq))
        for i, row in enumerate(Cq):
            r = row.copy()
            if basis.shape[0]:
                r -= basis.T @ (basis @ r)
                r -= basis.T @ (basis @ r)  # second pass for orthogonality
            nr = np.linalg.norm(r)
            if nr < tol * scale:
                raise RedundantConstraintError(
                    f"constraint row {labels[i]} is linearly dependent on the rows before it "
                    f"at t={t:.6g} s (Jacobian rank {basis.shape[0]} after {i + 1} rows)"
                )
            basis = np.vstack([basis, r / nr])
