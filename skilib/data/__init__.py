"""Force-plate data: the channels and units every loader knows (``channels``), loading and
validation of a CSV record (``forcedata``) or of a C3D file's analogs (``c3d``), the push-offs and
their fitted force (``push``), and the Fourier fit of thesis eq. 102 (``fourier``)."""
from . import c3d, channels, forcedata, fourier, push
from .c3d import read_force_data, write_force_data
from .forcedata import default_data_path, default_metadata_path, load_force_data
from .push import (PushForce, RepresentativePush, default_push_fit, default_push_force, detect_pushes, find_pushes,
                   fit_push, push_force_from_data, representative_push)

__all__ = ["load_force_data", "default_data_path", "default_metadata_path", "read_force_data", "write_force_data",
           "detect_pushes", "find_pushes", "representative_push", "RepresentativePush", "fit_push", "PushForce",
           "push_force_from_data", "default_push_fit", "default_push_force",
           "c3d", "channels", "forcedata", "fourier", "push"]
