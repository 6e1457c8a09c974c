"""skilib: a multibody dynamic model of cross-country ski skating.

A reimplementation of Bruzzo (2012), *A multibody dynamic model of the cross-country
ski-skating technique*: 3-D rigid bodies in absolute coordinates with ZXZ Euler angles,
constraints and drivers, the equations of motion with Lagrange multipliers and
Baumgarte stabilization (thesis eq. 101), and the thesis's three-body skier.
"""
from . import forcedata, fourier, sensitivity, sweeps
from .bodies import GROUND, RigidBody, box_inertia, rod_inertia
from .constraints import (
    CoordinateDriver,
    DistanceDriver,
    Fixed,
    FixedCoordinate,
    OrientationDriver,
    PointOnLine,
    PointOnPlane,
    PointPathDriver,
    Prismatic,
    Revolute,
    Spherical,
    Translational,
)
from .errors import (
    GimbalLockError,
    InconsistentInitialConditions,
    IntegrationError,
    RedundantConstraintError,
    SingularSystemError,
)
from .forces import AxialFriction, ConstantForce, Drag, Gravity, LineForce, PointForce, SpringDamper, Torque
from .rotation import ZXZ, EulerParameters, rotation_matrix
from .solver import DynamicsResult, baumgarte, consistent_initial_conditions, project, solve_dynamics
from .simulate import SimResult, simulate_phase, simulate_run, stand_in_push_force
from .skier import SkierModel, SkierParams, push_plane_direction, ski_heading
from .system import MultibodySystem
from .sweeps import read_sweep, sweep
from .timefunctions import Constant, FromCallables, Polynomial, RotationPath

__version__ = "0.1.0"
