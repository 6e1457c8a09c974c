"""The multibody engine: rigid bodies in absolute coordinates, constraints and drivers,
forces, the equations of motion with Lagrange multipliers (thesis eq. 101), their
integration, and generated code for them.  It knows nothing of skis; the skier models
(``skilib.models``) are built from its parts.

Importing it loads numpy and scipy only (no pandas, Dask or SALib).
"""
from .axis_drivers import AxialOffsetDriver, RadialDistanceDriver
from .bodies import GROUND, RigidBody, box_inertia, rod_inertia
from .constraints import (
    CoordinateDriver,
    DistanceDriver,
    Fixed,
    FixedCoordinate,
    OrientationDriver,
    ParallelAxes,
    PointOnLine,
    PointOnPlane,
    PointPathDriver,
    RelativePointDriver,
    Prismatic,
    Revolute,
    Spherical,
    Translational,
)
from .errors import (
    BudgetExceededError,
    GimbalLockError,
    InconsistentInitialConditions,
    IntegrationError,
    NonFiniteError,
    RedundantConstraintError,
    SingularSystemError,
)
from .forces import AxialFriction, AxisForce, ConstantForce, Drag, Gravity, LineForce, PointForce, SpringDamper, Torque
from .rotation import ZXZ, EulerParameters, rotation_matrix
from .evaluation import Evaluation
from .impact import ImpactResult, ImpactSite, impact
from .load_friction import LoadFriction, NegativeLoadError, SlidingError
from .integrators import ProjectedRK
from .nonholonomic import KnifeEdge, RollingDisk, VelocityRows
from .options import Integrator, Stabilization, baumgarte
from .projection import Projector, project
from .reactions import JointReaction, joint_reactions
from .solver import DynamicsResult, consistent_initial_conditions, gimbal_events, solve_dynamics
from .strut import SineSquaredPulse, Strut
from .system import MultibodySystem
from .timefunctions import Constant, FromCallables, Harmonic, Polynomial, RotationPath, Stack, TimeFunction

__all__ = [
    "GROUND", "RigidBody", "box_inertia", "rod_inertia",
    "AxialOffsetDriver", "RadialDistanceDriver", "CoordinateDriver", "DistanceDriver", "Fixed", "FixedCoordinate", "OrientationDriver", "ParallelAxes",
    "PointOnLine", "KnifeEdge", "RollingDisk", "VelocityRows",
    "PointOnPlane", "PointPathDriver", "RelativePointDriver", "Prismatic", "Revolute", "Spherical", "Translational",
    "GimbalLockError", "InconsistentInitialConditions", "IntegrationError", "RedundantConstraintError",
    "SingularSystemError", "NonFiniteError", "BudgetExceededError",
    "AxialFriction", "AxisForce", "ConstantForce", "Drag", "Gravity", "LineForce", "PointForce", "SpringDamper", "Torque",
    "LoadFriction", "NegativeLoadError", "SlidingError",
    "ZXZ", "EulerParameters", "rotation_matrix",
    "DynamicsResult", "baumgarte", "consistent_initial_conditions", "project", "solve_dynamics", "gimbal_events",
    "Evaluation", "ImpactResult", "ImpactSite", "impact", "ProjectedRK", "Integrator", "Stabilization", "Projector",
    "JointReaction", "joint_reactions",
    "MultibodySystem", "Strut", "SineSquaredPulse",
    "Constant", "FromCallables", "Harmonic", "Polynomial", "RotationPath", "Stack", "TimeFunction",
]
