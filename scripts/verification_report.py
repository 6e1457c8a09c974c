#!/usr/bin/env python
"""Measure the errors of the book's Verification chapter: run the verification tests, write the tables.

    python scripts/verification_report.py                  # run the tests, write book/_generated/
    python scripts/verification_report.py --records F.json # tables from the records of an earlier run
    python scripts/verification_report.py --skip "why"     # no run: the page says it shows no numbers

Every physics or mathematics test compares through the ``measured`` fixture (tests/conftest.py),
which asserts each error against its tolerance and, with ``SKILIB_VERIFICATION_OUT`` set,
records both.  This script runs those tests (every test function of VERIFICATION_FILES that
uses ``measured``; not the notebook or book checks) under pytest with the variable set, and
writes

- ``book/_generated/verification.md``: the run (date, commit, versions, counts, run time) and
  one table per section of book/verification.md (test, what it checks = the first paragraph of
  the test's docstring, quantity, tolerance, measured); book/verification.md includes its
  pieces with MyST's ``{include}`` between the ``<!-- section ... -->`` markers;
- ``book/_generated/verification_drift.md``: the drift / energy / cost table of notebook 01
  (``notebooks/results/01_verification.csv``, written when `make book` executes the notebook);
- ``book/_generated/verification.json``: the raw records.

"Measured" is the largest error over all states, samples and cases of a test; where the
tolerance itself depends on the case, the case closest to its tolerance is shown (marked †).
The exit status is 1 if a test fails (the tables are written all the same, the failure marked),
2 if pytest produced no records.
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
OUT = ROOT / "book" / "_generated"
NOTEBOOK_RESULTS = ROOT / "notebooks" / "results"
EXECUTED_01 = ROOT / "book" / "_executed" / "01_theory_checks.ipynb"
OUT_ENV = "SKILIB_VERIFICATION_OUT"

# Test files whose physics and mathematics tests make the Verification chapter.  Every test
# function in them uses `measured` or is listed in EXEMPT with the reason it measures no error.
VERIFICATION_FILES = (
    "test_rotation.py", "test_symbolic.py", "test_constraints.py", "test_dynamics.py", "test_errors.py",
    "test_double_pendulum.py", "test_kane_peer.py", "test_euler_parameters.py", "test_skier_parametrizations.py",
    "test_skier.py", "test_sweeps.py", "test_codegen.py", "test_fourier.py", "test_forcedata.py",
    "test_sensitivity.py", "test_cases.py", "test_nonholonomic.py", "test_steady.py", "test_free_skater.py",
    "test_stroke_change.py", "test_artefacts.py", "test_optimum.py", "test_strokes.py", "test_required_power.py",
    "test_impact.py", "test_load_friction.py", "test_edge_skater.py", "test_edge_plain_call.py",
    "test_optimum_ridge.py",
    "test_thesis_energy_account.py", "test_edge_compiled.py", "test_slope.py", "test_cost_of_work.py",
    "test_strut.py", "test_poles.py", "test_casadi_terms.py", "test_collocation.py", "test_optimal_control.py",
    "test_edge_collocation.py", "test_poles_collocation.py", "test_stepper.py", "test_sobol_study.py", "test_one_dof.py",
    "test_physiology.py", "test_force_velocity.py", "test_technique_choice.py", "test_fast_paths.py",
    "test_reduced.py", "test_variational.py", "test_quadrature.py",
)
# The other test files, and why they are not verification tests.
OTHER_TEST_FILES = {
    "test_book.py": "static checks of the book's sources",
    "test_page_checker.py": "the browser check of the built book (make screenshots) on a small site, no physics",
    "test_notebooks.py": "runs the notebooks; their own numbers are in their pages",
    "test_environment.py": "checks the installed environment",
    "test_verification_report.py": "checks this script and the `measured` fixture",
    "test_layout.py": "checks the package's layout (what imports what), no physics",
    "test_margins.py": "re-runs the cross-path tests under other OpenBLAS kernels (make check); their errors are theirs",
    "test_using.py": "runs the code of the book page 'Using this compendium', no physics",
    "test_readme.py": "runs the README's snippets as written, no physics",
    "test_vocabulary.py": "every result's columns have a unit; the renamed speeds and the CLI's rows are the library's numbers",
    "test_reliability.py": "damaged caches, bad inputs, sweeps and force files are named or repaired: no error to measure",
    "test_c3d.py": "C3D file round trips (float32 storage) and the force loader's C3D errors; no model error",
    "test_inverse.py": "inverse-mode round trips; their errors are reported in notebook 09 (Seeing the skier)",
    "test_plot.py": "drawings and animations of a model: geometry of the drawn points, player size",
    "test_free_sweep.py": "sweeps of the free skater equal the direct calls exactly; bad rows are named: no error to measure",
    "test_cli.py": "the command line prints the library's numbers exactly; bad arguments are named: no error to measure",
    "test_files.py": "checked atomic writes and checked reads (existing, truncated, garbage files): no physics",
    "test_hostile.py": "bad input to the engine, the strokes and the thesis's skier is refused by name: no error to measure",
    "test_hostile_studies.py": "bad input to drawings, studies and options is refused by name: no error to measure",
    "test_plausible.py": "numbers set beside measured human ranges (warnings with their sources): no model error",
    "test_progress_long_calls.py": "progress bars on stderr; the results equal bit for bit without them: no error to measure",
    "test_beside.py": "the forked-process helper's contract (results, warnings, failures, threads): no physics",
    "test_sparse_elimination.py": "the kernels' sparse elimination equals the dense one bit for bit: no error to measure",
    "test_compiled_programs.py": "compiled point functions equal CasADi's virtual machine bit for bit; damaged caches "
                                 "are rebuilt: no error to measure",
}

_EXCEPTIONS = "bad input raises a named error: no error to measure"
_DATA = "the loader or push detection on hand-built files: exact values built into the input, no physics"
_CONTRACT = "properties of the SYNTHETIC data set (its contract), not an error of the model"
_API = "API behaviour (caching, immutability, paths, determinism, wiring of arguments): no error to measure"
_INFRA = "infrastructure (Dask clusters, Parquet files, reporting of failed runs): no error to measure"
EXEMPT = {
    "test_quadrature.py": {
        "test_a_speed_dependent_force_is_refused_by_the_check_not_by_a_flag": _EXCEPTIONS,
        "test_reduced_refuses_bad_input": _EXCEPTIONS,
        "test_a_run_by_quadrature_is_the_same_bits_with_its_kept_numbers_or_without": _API,
    },
    "test_variational.py": {
        "test_variational_flow_refuses_bad_input": _EXCEPTIONS,
        "test_stroke_map_jacobian_refuses_a_stroke_in_phases": _EXCEPTIONS,
    },
    "test_fast_paths.py": {
        "test_a_compiled_system_moved_to_another_start_point_is_its_compilation_bit_for_bit": "the same kernel on the "
                                                                                               "same numbers: equal "
                                                                                               "bits, asserted exactly",
        "test_stances_are_kept_per_parameter_set": _API,
        "test_the_edged_skater_s_kept_start_models_give_the_same_bits": "the same models' kernel calls on the same "
                                                                        "numbers: equal bits, asserted exactly",
        "test_steady_state_asked_again_is_the_same_bit_for_bit": _API,
        "test_overlapped_tables_are_the_sequential_loop_s_bits": "the same operations on the same numbers in "
                                                                 "another thread: equal tables, asserted exactly",
        "test_an_error_in_a_stroke_s_tables_is_raised_before_the_later_strokes": _API,
        "test_kept_last_keeps_the_most_recently_used": _API,
        "test_a_run_s_one_frame_is_its_strokes_frames_concatenated": "the same columns in one DataFrame instead of "
                                                                     "one per stroke: equal tables, asserted exactly",
        "test_strokes_whose_columns_differ_are_concatenated_as_pandas_does": _API,
        "test_a_column_s_extremes_are_pandas_min_and_max": _API,
        "test_a_result_s_tables_are_built_when_first_read_and_kept": _API,
        "test_a_run_stepped_in_python_keeps_the_sequential_loop": _API,
        "test_the_thesis_skier_s_kept_stroke_starts_are_a_fresh_build_s_bits": "the same operations on the same "
                                                                                "numbers: equal bits, asserted exactly",
        "test_positions_alone_are_the_consistent_initial_conditions_bits": "the same operations on the same numbers: "
                                                                           "equal bits, asserted exactly",
        "test_points_evaluated_in_c_are_the_point_by_point_evaluations_bit_for_bit": "the same kernel calls on the "
                                                                                     "same numbers: equal bits, "
                                                                                     "asserted exactly",
        "test_frames_tabulated_in_c_are_the_point_by_point_frames_bit_for_bit": "the same kernel calls on the same "
                                                                                "numbers: equal frames, asserted "
                                                                                "exactly",
        "test_stacked_rotation_matrices_are_the_point_by_point_ones_bit_for_bit": "the same operations on the same "
                                                                                  "numbers: equal bits, asserted "
                                                                                  "exactly",
        "test_a_stroke_maps_touch_down_without_its_row_is_the_touch_down_bit_for_bit":
            "the same operations without the row's energies: equal bits, asserted exactly",
        "test_the_push_at_every_point_is_the_push_called_point_by_point_bit_for_bit":
            "the same operations element-wise: equal bits, asserted exactly",
        "test_step_path_is_odesolution_bit_for_bit": "the same operations on the same numbers: equal bits, "
                                                     "asserted exactly (no error to measure)",
        "test_a_stroke_map_without_the_split_is_the_same_map_bit_for_bit": "the same steps with the signed works "
                                                                           "left unsplit: equal bits, asserted exactly",
        "test_screen_in_a_forked_process_is_the_screen_in_turn_bit_for_bit": "the same computation in a forked "
                                                                             "process: equal bits, asserted exactly",
        "test_coach_question_with_the_program_built_beside_the_screen_is_the_same_bit_for_bit":
            "the same computation with its screen in a forked process: equal bits, asserted exactly",
        "test_steady_means_are_the_steady_states_bit_for_bit": "the same strokes read without their tables: "
                                                               "equal bits, asserted exactly",
        "test_a_steady_sweep_of_the_means_is_the_full_sweep_bit_for_bit": "the same strokes read without their "
                                                                          "tables: equal bits, asserted exactly",
    },
    "test_reduced.py": {
        "test_what_the_quadrature_does_not_follow_is_refused_by_name": _EXCEPTIONS,
        "test_a_reduced_sweep_takes_the_engines_path_where_the_quadrature_does_not_hold":
            "which path each row took, and the same numbers as the call it makes: equal bits, asserted exactly",
    },
    "test_strokes.py": {
        "test_mirroring_and_sides": "definitions: a sign and the order of the sides, exact",
        "test_a_speed_the_map_cannot_hold_is_refused": _EXCEPTIONS,
        "test_a_skater_that_comes_to_a_halt_is_told_so": "the words of a refused search: no error to measure",
        "test_the_coarse_levels_a_search_may_take": "which coarse tolerances a search may take: settings built from "
                                                    "rules, compared exactly",
    },
    "test_artefacts.py": {"test_box_table_shows_every_number": "the box's Markdown shows each number: formatting, no error"},
    "test_free_skater.py": {
        "test_user_laws_are_time_functions": _EXCEPTIONS, "test_bad_parameters_name_the_field": _EXCEPTIONS,
        "test_a_stroke_that_does_not_glide_is_no_steady_state": _EXCEPTIONS,
        "test_implausible_values_are_refused_by_name": _EXCEPTIONS,
        "test_implausible_techniques_are_refused_before_running": _EXCEPTIONS,
        "test_the_defaults_and_the_optimum_bounds_are_plausible": "the defaults lie inside the stated ranges: a "
                                                                  "property of the parameters, no error",
        "test_every_call_has_a_wall_time_budget": _API,
        "test_an_unknown_touchdown_rule_is_refused_by_name": _EXCEPTIONS,
    },
    "test_required_power.py": {"test_a_speed_beyond_the_bounds_is_refused_by_name": _EXCEPTIONS,
                               "test_a_start_the_model_cannot_run_is_named_not_called_unreachable": _EXCEPTIONS},
    "test_nonholonomic.py": {
        "test_redundant_velocity_row_is_named": _EXCEPTIONS, "test_bad_velocity_components_name_themselves": _EXCEPTIONS,
    },
    "test_impact.py": {"test_bad_impact_input_is_named": _EXCEPTIONS},
    "test_edge_skater.py": {"test_what_the_model_does_not_do_is_refused_by_name": _EXCEPTIONS,
                            "test_a_crouch_the_model_cannot_make_is_refused_by_name": _EXCEPTIONS},
    "test_edge_plain_call.py": {
        "test_a_fall_is_refused_by_name_before_or_while_running": _EXCEPTIONS,
        "test_a_bad_v0_is_refused_before_anything_runs": _EXCEPTIONS,
        "test_the_other_inputs_of_the_plain_call_are_refused_by_name": _EXCEPTIONS,
        "test_parameters_without_a_periodic_stroke_are_named": _EXCEPTIONS,
    },
    "test_optimum_ridge.py": {"test_snow_load_margin_example_and_bad_input": _EXCEPTIONS},
    "test_slope.py": {"test_an_impossible_slope_is_refused_by_name": _EXCEPTIONS},
    "test_thesis_energy_account.py": {
        "test_ranking_rows_say_what_they_measure": "the ranking's rows name their switch and say when a cause is not "
                                                   "measured: labels, no error",
        "test_a_mechanism_the_baseline_lacks_is_not_measured": "a row marked not measured: a label, no error",
        "test_bad_input_names_the_parameter": _EXCEPTIONS},
    "test_load_friction.py": {"test_sticking_and_pulling_loads_are_refused_by_name": _EXCEPTIONS,
                              "test_bad_load_friction_is_refused_by_name": _EXCEPTIONS,
                              "test_compiled_kernels_refuse_a_pulling_load_as_the_numeric_engine": _EXCEPTIONS,
                              "test_the_structure_key_and_the_kernel_depend_on_the_load_columns": _API},
    "test_strut.py": {"test_bad_strut_and_pulse_input_is_refused_by_name": _EXCEPTIONS},
    "test_poles.py": {"test_bad_pole_parameters_are_refused_by_name": _EXCEPTIONS},
    "test_casadi_terms.py": {"test_what_does_not_trace_or_has_no_value_is_refused_by_name": _EXCEPTIONS},
    "test_collocation.py": {
        "test_a_program_ipopt_does_not_solve_is_not_an_optimum": "IPOPT's status is reported: no error to measure",
        "test_bad_arguments_are_named": _EXCEPTIONS,
        "test_collocation_refuses_what_it_does_not_transcribe": _EXCEPTIONS,
        "test_a_point_function_that_enters_other_than_linearly_is_refused_by_name": _EXCEPTIONS,
        "test_a_bad_warm_start_is_refused_by_name": _EXCEPTIONS,
        "test_the_coachs_question_by_collocation_refuses_what_it_does_not_use": _EXCEPTIONS,
    },
    "test_poles_collocation.py": {
        "test_what_collocation_cannot_take_with_poles_is_named": _EXCEPTIONS,
    },
    "test_edge_collocation.py": {
        "test_a_model_without_a_transcription_is_named": _EXCEPTIONS,
        "test_free_control_names_a_wrong_caps_class": _EXCEPTIONS,
        "test_a_stroke_from_a_touchdown_state_refuses_bad_input_by_name": _EXCEPTIONS,
    },
    "test_optimal_control.py": {
        "test_bad_splines_and_caps_are_refused_by_name": _EXCEPTIONS,
        "test_caps_no_stroke_can_meet_are_reported_not_solved": "IPOPT's status is reported: no error to measure",
    },
    "test_errors.py": {
        "test_gimbal_lock_names_body_and_time": _EXCEPTIONS, "test_redundant_constraint_is_named": _EXCEPTIONS,
        "test_newton_raphson_failure_reports_residual": _EXCEPTIONS, "test_inconsistent_start_is_refused": _EXCEPTIONS,
        "test_bad_body_parameters": _EXCEPTIONS, "test_bad_solver_inputs": _EXCEPTIONS,
    },
    "test_sobol_study.py": {"test_a_kept_file_that_is_not_its_design_is_refused": _EXCEPTIONS,
                            "test_a_row_run_twice_here_is_equal_bit_for_bit": "equality in every bit: no error to measure",
                            "test_the_check_reports_its_largest_difference": "a moved kept output is found: the check's "
                                                                             "own report, no model error"},
    "test_stepper.py": {
        "test_what_c_cannot_step_is_refused_by_name": _EXCEPTIONS,
        "test_a_budget_used_up_in_c_is_refused_by_name": _EXCEPTIONS,
        "test_a_pulling_load_in_c_is_the_compiled_system_s_error": _EXCEPTIONS,
    },
    "test_codegen.py": {
        "test_c_kernel_is_cached_on_disk_and_loaded_without_sympy": _API,
        "test_singular_augmented_matrix_is_reported_by_every_backend": _EXCEPTIONS,
        "test_bad_system_argument": _EXCEPTIONS,
    },
    "test_skier.py": {
        "test_headings_and_push_planes": "parameter conventions (headings, push-plane directions): definitions",
        "test_default_force_is_the_fitted_synthetic_curve": _API, "test_half_force_scales_the_push": _API,
        "test_runs_are_deterministic": _API, "test_bad_parameters_name_the_field": _EXCEPTIONS,
        "test_geometric_limits_are_inclusive_and_reasoned": _EXCEPTIONS, "test_simulate_argument_errors": _EXCEPTIONS,
    },
    "test_skier_parametrizations.py": {"test_bad_rotation_or_stabilization_names_the_argument": _EXCEPTIONS},
    "test_physiology.py": {"test_a_bad_physiology_parameter_is_refused_by_name": _EXCEPTIONS},
    "test_technique_choice.py": {
        "test_switching_a_term_off_zeros_its_coefficients": "which fields a switch sets to zero: a definition, no error",
        "test_trends_and_verdicts_of_hand_made_series": "a classification rule (rises, falls, flat) on hand-made "
                                                        "series: no error to measure",
        "test_bad_arguments_are_refused_by_name": _EXCEPTIONS,
        "test_an_optimum_not_confirmed_says_why_in_its_row": "which words a row carries beside an unconfirmed optimum: no error to measure",
        "test_a_margin_passed_between_the_mesh_points_is_solved_again_on_a_finer_mesh":
            "which meshes a refused collocated optimum is solved on again, from where, and what is refused, with a "
            "stand-in optimizer: no error to measure"},
    "test_force_velocity.py": {"test_bad_fields_are_refused_by_name": _EXCEPTIONS,
                               "test_bad_arguments_are_refused_by_name": _EXCEPTIONS,
                               "test_the_optimizers_refuse_a_limit_they_cannot_use": _EXCEPTIONS,
                               "test_the_cli_refuses_a_bad_limit_by_name": _EXCEPTIONS,
                               "test_the_cli_refuses_the_limit_for_the_thesis_skier": _EXCEPTIONS},
    "test_sweeps.py": {
        "test_a_failing_parameter_set_is_reported_and_the_others_run": _INFRA,
        "test_dask_local_cluster_gives_the_serial_results": _INFRA,
        "test_an_existing_scheduler_is_used_by_address": _INFRA, "test_bad_arguments_name_what_is_wrong": _EXCEPTIONS,
        "test_read_sweep_rejects_other_files": _EXCEPTIONS, "test_a_busy_dashboard_port_does_not_disturb_a_sweep": _INFRA,
    },
    "test_fourier.py": {
        "test_fit_is_frozen_and_arrays_read_only": _API, "test_pearson_r_rejects_bad_input": _EXCEPTIONS,
        "test_choose_harmonics_returns_the_smallest_sufficient_m": "a selection rule (orderings of r), no error",
        "test_fit_rejects_bad_input_naming_the_parameter": _EXCEPTIONS,
        "test_evaluate_rejects_bad_derivative_order": _EXCEPTIONS, "test_module_has_no_mutable_state": _API,
    },
    "test_sensitivity.py": {
        "test_designs_and_confidence_intervals_are_seeded": _API, "test_bad_designs": _EXCEPTIONS, "test_bad_outputs_are_errors_not_skips": _EXCEPTIONS,
    },
    "test_steady.py": {"test_bad_arguments": _EXCEPTIONS},
    "test_optimum.py": {
        "test_at_bound_marks_a_parameter_within_one_percent_of_its_range": "a classification against the bounds, "
                                                                            "exact: no error to measure",
        "test_the_progress_bar_counts_steady_states_and_changes_nothing": _API,
        "test_a_second_question_reuses_the_screen_bit_for_bit": "equality of a reused screen with the first, "
                                                                 "bit for bit: no error to measure",
        "test_the_front_records_a_power_out_of_reach_and_goes_on": _API,
        "test_bad_arguments_are_named_before_anything_runs": _EXCEPTIONS,
        "test_required_power_refuses_a_bad_speed": _EXCEPTIONS,
        "test_the_thesis_bounds_are_checked_against_its_plausible_ranges": _EXCEPTIONS,
        "test_edge_bounds_are_checked_against_its_plausible_ranges": _EXCEPTIONS,
        "test_an_unknown_budget_is_refused_by_name": _EXCEPTIONS,
        "test_bad_arguments": _EXCEPTIONS,
        "test_no_runnable_start_is_named_by_both_methods": _EXCEPTIONS,
        "test_failures_are_recorded_and_penalised": "a refused technique is logged with its error and a fixed penalty: no error to measure",
        "test_dask_starts_give_the_serial_result": _INFRA,
        "test_seeded_starts_are_points_the_model_can_run": "which seeded candidates become starts, and the refused "
                                                            "ones recorded: no error to measure",
    },
    "test_stroke_change.py": {
        "test_rule_names_and_validation": _EXCEPTIONS, "test_speed_kept_raises_without_solution": _EXCEPTIONS,
        "test_no_steady_state_when_the_change_keeps_the_ski_speed": _EXCEPTIONS,
    },
    "test_cases.py": {
        "test_cases_are_frozen_and_their_kwargs_fit_the_simulations": _API,
        "test_table7_cases_share_one_end_pose_and_order_as_the_thesis_argues": _API,
        "test_thesis_values_name_unit_and_source": _API,
        "test_leg_laws_reproduce_table7_and_keep_table9s_pose": _API,
        "test_level_off_stroke_and_joint_forces": _API,
    },
    "test_forcedata.py": {
        **{name: _DATA for name in (
            "test_small_good_file_loads_in_si", "test_units_from_metadata_and_conversion",
            "test_detect_pushes_hysteresis_and_boundaries", "test_detect_pushes_marks_cut_off_pushes_incomplete",
            "test_representative_push_is_the_median_duration_one")},
        **{name: _EXCEPTIONS for name in (
            "test_missing_column", "test_nan_cell", "test_empty_cell", "test_duplicated_time", "test_decreasing_time",
            "test_text_in_numeric_cell", "test_empty_file", "test_header_without_data", "test_non_uniform_sampling",
            "test_missing_units", "test_unknown_and_conflicting_units", "test_ragged_row_and_blank_line",
            "test_metadata_checks", "test_detect_pushes_validates_parameters", "test_detect_pushes_validates_arrays",
            "test_generator_rejects_bad_seed", "test_default_push_force_scalar_and_range",
            "test_every_path_of_a_push_accepts_the_same_phase_times")},
        **{name: _CONTRACT for name in (
            "test_committed_synthetic_file_loads_and_says_synthetic", "test_generator_reproduces_committed_files_byte_for_byte",
            "test_generator_runs_as_a_script", "test_every_push_has_loading_and_push_off_peaks_in_range",
            "test_pushes_repeat_about_every_second_and_alternate", "test_swing_phase_reads_zero_plus_offset_and_noise",
            "test_friction_channel_resembles_table_8")},
        "test_default_data_path": _API, "test_default_fit_is_cached": _API,
        "test_a_recording_on_disk_takes_the_same_route": _API,
    },
}


@dataclass(frozen=True)
class Section:
    """A section of book/verification.md: its marker slug, its heading, and its tests.

    ``members`` are "file.py" (every measured test of the file not claimed by an explicit
    "file.py::test" elsewhere) or "file.py::test"; rows follow this order, then the file's.
    """

    slug: str
    title: str
    members: tuple[str, ...]


SECTIONS = (
    Section("rotations", "Rotations (thesis §3.2)",
            ("test_rotation.py", "test_euler_parameters.py::test_euler_parameter_rotation_and_G")),
    Section("mass-matrix", "Mass matrix and quadratic-velocity vector (eqs. 40–46, 84–92)",
            ("test_symbolic.py", "test_euler_parameters.py::test_quadratic_velocity_is_lagrange_in_euler_parameters")),
    Section("constraints", "Constraint Jacobians, Ct and Qd (eqs. 93–98)",
            ("test_constraints.py", "test_euler_parameters.py::test_constraints_exact_on_euler_parameter_bodies")),
    Section("conservation", "Conservation laws and analytic solutions",
            ("test_dynamics.py", "test_errors.py", "test_skier.py::test_friction_never_drives_the_ski_backwards")),
    Section("independent-models", "Independent models of the same system",
            ("test_double_pendulum.py", "test_skier.py::test_reduced_equation_matches_multibody", "test_kane_peer.py")),
    Section("parametrizations", "Rotation parametrizations and stabilizations",
            ("test_euler_parameters.py", "test_skier_parametrizations.py")),
    Section("nonholonomic", "Velocity (non-holonomic) constraints", ("test_nonholonomic.py",)),
    Section("impacts", "Impacts", ("test_impact.py",)),
    Section("load-friction", "Friction on a constraint's load", ("test_load_friction.py",)),
    Section("strut", "A strut from a fixed ground point (a ski pole)", ("test_strut.py",)),
    Section("strokes", "The stroke machinery every model shares (a sliding block)", ("test_strokes.py",)),
    Section("free-skater", "The free skater (beyond the thesis)", ("test_free_skater.py",)),
    Section("edged-skater", "The edged skater (beyond the thesis)", ("test_edge_skater.py", "test_edge_plain_call.py")),
    Section("slope", "The course's slope (every model)", ("test_slope.py",)),
    Section("cost-of-work", "The cost of work, the whole physiological cost and the leg's force–velocity limit "
                            "(the free and the edged skater)",
            ("test_cost_of_work.py", "test_physiology.py", "test_force_velocity.py")),
    Section("poles", "Poles (V2 skating, the free and the edged skater)", ("test_poles.py",)),
    Section("technique-choice", "Choosing a technique: the least whole cost at a speed (the free skater)",
            ("test_technique_choice.py",)),
    Section("optimum", "The optimum technique and the least power for a speed (beyond the thesis)",
            ("test_optimum.py", "test_required_power.py", "test_optimum_ridge.py")),
    Section("skier", "The skier model (thesis ch. 4–5)",
            ("test_skier.py", "test_steady.py", "test_stroke_change.py", "test_sweeps.py", "test_cases.py",
             "test_artefacts.py", "test_thesis_energy_account.py", "test_one_dof.py", "test_reduced.py")),
    Section("codegen", "Generated code",
            ("test_codegen.py", "test_skier.py::test_compiled_kernel_and_numeric_engine_give_the_same_run",
             "test_edge_compiled.py", "test_stepper.py")),
    Section("fast-paths", "Faster paths against the paths they replace (array-form frame, prepared impact, "
                          "screen beside the program's construction, a run by quadrature)",
            ("test_fast_paths.py", "test_quadrature.py")),
    Section("casadi", "The terms as CasADi functions (optimal control)", ("test_casadi_terms.py",)),
    Section("variational", "The variational equations: flows' and stroke maps' derivatives",
            ("test_variational.py",)),
    Section("collocation", "Collocation and optimal control (beyond the thesis)",
            ("test_collocation.py", "test_edge_collocation.py", "test_poles_collocation.py", "test_optimal_control.py")),
    Section("fourier", "Fourier fit of the push-off (eqs. 102–103)", ("test_fourier.py", "test_forcedata.py")),
    Section("sensitivity", "Sensitivity analysis", ("test_sensitivity.py", "test_sobol_study.py")),
)
MEASURED_METHODS = {"check", "allclose", "exceeds"}


# -- which tests measure -------------------------------------------------------------------------
@dataclass(frozen=True)
class FoundTest:
    file: str
    name: str
    line: int
    takes_measured: bool
    calls_measured: bool
    has_doc: bool

    @property
    def id(self) -> str:
        return f"{self.file}::{self.name}"


def scan_tests(path: Path) -> list[FoundTest]:
    """The module-level test functions of a test file, with how they use `measured`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            takes = "measured" in [a.arg for a in node.args.args + node.args.kwonlyargs]
            calls = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                        and n.func.attr in MEASURED_METHODS and isinstance(n.func.value, ast.Name)
                        and n.func.value.id == "measured" for n in ast.walk(node))
            # a helper that receives `measured` and checks (tests/test_codegen.py's _check_terms)
            passes = any(isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == "measured" for a in n.args)
                         for n in ast.walk(node))
            found.append(FoundTest(path.name, node.name, node.lineno, takes, calls or passes,
                                      bool(ast.get_docstring(node))))
    return found


def measured_tests() -> list[FoundTest]:
    return [t for f in VERIFICATION_FILES for t in scan_tests(TESTS / f) if t.takes_measured and t.calls_measured]


def coverage_problems() -> list[str]:
    """Why a physics test could miss the page: each problem as a sentence (empty: none)."""
    problems = []
    on_disk = {p.name for p in TESTS.glob("test_*.py")}
    for name in sorted(on_disk - set(VERIFICATION_FILES) - set(OTHER_TEST_FILES)):
        problems.append(f"tests/{name} is neither a verification file nor listed in OTHER_TEST_FILES")
    for name in sorted((set(VERIFICATION_FILES) | set(EXEMPT)) - on_disk):
        problems.append(f"tests/{name} is listed but does not exist")
    for f in VERIFICATION_FILES:
        if f not in on_disk:
            continue
        exempt = EXEMPT.get(f, {})
        funcs = scan_tests(TESTS / f)
        for t in funcs:
            measured = t.takes_measured and t.calls_measured
            if t.takes_measured and not t.calls_measured:
                problems.append(f"{t.id} takes `measured` but never calls measured.check/allclose/exceeds")
            elif not measured and t.name not in exempt:
                problems.append(f"{t.id} compares nothing through `measured` and is not in EXEMPT")
            if measured and t.name in exempt:
                problems.append(f"{t.id} is measured but also listed in EXEMPT")
            if measured and not t.has_doc:
                problems.append(f"{t.id} has no docstring (the page's 'what it checks')")
            if measured and section_of(t) is None:
                problems.append(f"{t.id} belongs to no section of SECTIONS")
        for name in sorted(set(exempt) - {t.name for t in funcs}):
            problems.append(f"EXEMPT lists {f}::{name}, which does not exist")
    return problems


def section_of(t: FoundTest) -> Section | None:
    for s in SECTIONS:
        if t.id in s.members:
            return s
    for s in SECTIONS:
        if t.file in s.members:
            return s
    return None


def order_key(t: FoundTest) -> tuple:
    s = section_of(t)
    pos = s.members.index(t.id) if t.id in s.members else s.members.index(t.file)
    return pos, t.line


# -- running ---------------------------------------------------------------------------------------
def run_tests(records: Path) -> int:
    """pytest on every measured test, recording into `records`; returns pytest's exit status."""
    ids = [f"tests/{t.file}::{t.name}" for t in measured_tests()]
    records.unlink(missing_ok=True)
    env = {**os.environ, OUT_ENV: str(records)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids]
    print(f"[verification] pytest on {len(ids)} test functions of {len(VERIFICATION_FILES)} files", flush=True)
    return subprocess.call(cmd, cwd=ROOT, env=env)


# -- formatting -----------------------------------------------------------------------------------
def fmt(x, digits: int = 2, sci: bool = False) -> str:
    """A measured number: 4.3e-14, 0.034, 57, 1.2e5 (``sci``: always 3.4e-2); exact zero is 0."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "NaN"
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    sign = "−" if x < 0 else ""
    a = abs(x)
    if 1e-3 <= a < 1e4 and not sci:
        s = f"{a:.{digits}g}" if a < 100 else f"{a:.0f}"
    else:
        m, e = f"{a:.{digits - 1}e}".split("e")
        s = f"{m}e{int(e)}"
    return sign + s


def fmt_bound(x) -> str:
    """A tolerance: as written where it is short (1e-9, 0.05, 1.000000001), else 2 digits."""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return fmt(x)
    r = repr(abs(x))
    mant, _, exp = r.partition("e")
    digits = len(mant.replace(".", "").lstrip("0").rstrip("0") or "0")
    if digits > 10:
        return fmt(x)
    sign = "−" if x < 0 else ""
    if exp:
        return f"{sign}{mant.rstrip('0').rstrip('.') if '.' in mant else mant}e{int(exp)}"
    return sign + (mant[:-2] if mant.endswith(".0") else mant)


def nowrap(number: str) -> str:
    """A number the browser does not break after the exponent's '-' (raw HTML in MyST)."""
    return f'<span style="white-space:nowrap">{number}</span>' if "e" in number else number


def with_unit(s: str, unit: str) -> str:
    return f"{s} {unit}" if unit else s


def md(text: str) -> str:
    """Escape text for a Markdown table cell, leaving `code spans` alone."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        p = parts[i].replace("\\", "\\\\")
        for ch in "|*_$[]<>":
            p = p.replace(ch, "\\" + ch)
        parts[i] = p
    return "`".join(parts)


def code_wrappable(name: str) -> str:
    """A long identifier as code that the browser may break after "_" and "::" (<wbr> adds no
    character, so a copied name stays the name)."""
    return "<code>" + md(name).replace("\\_", "\\_<wbr>").replace("::", "::<wbr>") + "</code>"


def closeness(value, bound, relation) -> float:
    """How near a value is to its bound (1 = on it); the same measure as tests/conftest.py's."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return math.inf
    if relation == ">":
        return bound / value if value > 0 and bound > 0 else bound - value
    if bound > 0:
        return value / bound
    return 0.0 if value <= 0 else math.inf


# -- the tables ------------------------------------------------------------------------------------
@dataclass
class Row:
    quantity: str
    value: float
    bound: float
    unit: str
    relation: str
    passed: bool
    n: int
    varies: bool
    argued: str = ""


def merge_checks(checks: list[dict]) -> list[Row]:
    """One row per (quantity, unit, relation) over all cases of a test: the case closest to its bound."""
    rows: dict[tuple, Row] = {}
    lo: dict[tuple, float] = {}
    hi: dict[tuple, float] = {}
    for c in checks:
        key = (c["quantity"], c["unit"], c["relation"])
        lo[key] = min(lo.get(key, math.inf), c["bound_min"])
        hi[key] = max(hi.get(key, -math.inf), c["bound_max"])
        r = rows.get(key)
        if r is None:
            rows[key] = Row(c["quantity"], c["value"], c["bound"], c["unit"], c["relation"], c["passed"], c["n"], False,
                            c.get("argued", ""))
            continue
        if closeness(c["value"], c["bound"], c["relation"]) > closeness(r.value, r.bound, r.relation):
            r.value, r.bound = c["value"], c["bound"]
        r.argued = r.argued or c.get("argued", "")
        r.passed &= c["passed"]
        r.n += c["n"]
    for key, r in rows.items():
        r.varies = lo[key] != hi[key]
    return list(rows.values())


def tolerance_cell(r: Row) -> str:
    s = nowrap(fmt_bound(r.bound)) + (" " + md(r.unit) if r.unit else "")
    if r.relation == ">":
        s = "\\> " + s
    return s + ("†" if r.varies else "") + ("‡" if r.argued else "")


def measured_cell(r: Row) -> str:
    s = fmt(r.value)
    if s == fmt(r.bound) and r.value != r.bound:
        s = fmt(r.value, 10)  # as close to the bound as two digits cannot show
    s = nowrap(s) + (" " + md(r.unit) if r.unit else "")
    return s if r.passed else f"**{s} (fails)**"


def group_tests(records: dict) -> dict[str, dict]:
    """The recorded tests by `file::function`, their cases merged."""
    groups: dict[str, dict] = {}
    for t in records["tests"]:
        g = groups.setdefault(f"{t['file']}::{t['function']}", dict(nodeids=[], outcomes=[], doc=t["doc"], messages=[]))
        g["nodeids"].append(t["nodeid"])
        g["outcomes"].append(t["outcome"])
        if t["message"] and t["outcome"] != "passed":
            g["messages"].append(t["message"])
    return groups


def section_tables(records: dict) -> dict[str, list[str]]:
    """Markdown lines of each section's table, by slug."""
    groups = group_tests(records)
    by_node: dict[str, list[dict]] = {}
    for c in records["checks"]:
        by_node.setdefault(c["nodeid"], []).append(c)
    known = {t.id: t for f in VERIFICATION_FILES if (TESTS / f).exists() for t in scan_tests(TESTS / f)}
    placed: dict[str, list[tuple]] = {s.slug: [] for s in SECTIONS}
    for tid, g in groups.items():
        t = known.get(tid)
        s = section_of(t) if t else None
        if s is None:  # a recorded test this script does not know: shown, never dropped
            s, key = SECTIONS[-1], (math.inf, 0)
        else:
            key = order_key(t)
        placed[s.slug].append((key, tid, g))
    out = {}
    for s in SECTIONS:
        lines = ["| test | what it checks | quantity | tolerance | measured |", "|---|---|---|---|---|"]
        footnote = False
        argued: dict[str, str] = {}
        for _, tid, g in sorted(placed[s.slug], key=lambda x: x[0]):
            n = len(g["nodeids"])
            failed = [o for o in g["outcomes"] if o in ("failed", "error")]
            skipped = g["outcomes"].count("skipped")
            label = code_wrappable(tid) + (f" ({n} cases)" if n > 1 else "")
            if failed:
                label += f" **failed ({len(failed)} of {n})**" if n > 1 else " **failed**"
            if skipped:
                label += f" (skipped: {skipped} of {n})" if n > 1 else " (skipped)"
            rows = merge_checks([c for nid in g["nodeids"] for c in by_node.get(nid, [])])
            doc = md(g["doc"]) or "*(no docstring)*"
            if not rows:
                why = "; ".join(dict.fromkeys(g["messages"])) or "no comparison recorded"
                lines.append(f"| {label} | {doc} | — | — | {'**' + md(why) + '**' if failed else md(why)} |")
                continue
            for i, r in enumerate(rows):
                footnote |= r.varies
                if r.argued:
                    argued.setdefault(r.quantity, r.argued)
                first = (label, doc) if i == 0 else ("", "")
                lines.append(f"| {first[0]} | {first[1]} | {md(r.quantity)} | {tolerance_cell(r)} | {measured_cell(r)} |")
            if failed and all(r.passed for r in rows):
                why = "; ".join(dict.fromkeys(g["messages"])) or "failed"
                lines.append(f"| | | failed outside the measured comparisons | — | **{md(why)}** |")
        if len(lines) == 2:
            lines.append("| — | no test recorded in this section | — | — | — |")
        if footnote:
            lines += ["", "† The tolerance depends on the case (it scales with the data); shown is the case "
                          "closest to its tolerance."]
        if argued:
            lines += ["", "‡ The error may come within a factor of ten of this tolerance; why the tolerance is what "
                          "it is:"]
            lines += [f"- {md(q)}: {md(why.rstrip('.'))}." for q, why in argued.items()]
        out[s.slug] = lines
    return out


def summary(records: dict) -> dict:
    tests, checks, meta = records["tests"], records["checks"], records["meta"]
    failed = [t["nodeid"] for t in tests if t["outcome"] in ("failed", "error")]
    return dict(n_tests=len(tests), n_functions=len(group_tests(records)), n_checks=len(checks),
                n_comparisons=sum(c["n"] for c in checks), failed=failed,
                skipped=sum(t["outcome"] == "skipped" for t in tests), duration_s=meta["duration_s"])


def run_line(records: dict) -> str:
    m, s = records["meta"], summary(records)
    changed = m.get("changed_files") or []
    commit = f"commit `{m['commit']}`" + (f" with uncommitted changes in {len(changed)} files" if changed else "")
    status = "all passed" if not s["failed"] else f"**{len(s['failed'])} failed**"
    if s["skipped"]:
        status += f", {s['skipped']} skipped"
    return (f"Measured by `scripts/verification_report.py` on {m['date']} at {commit}; Python {m['python']}, "
            f"NumPy {m['numpy']}, {m['platform']}, {m['cpus']} CPUs. {s['n_tests']} tests "
            f"({s['n_functions']} test functions) with {s['n_checks']} measured quantities "
            f"({s['n_comparisons']} comparisons): {status}, in {fmt_duration(s['duration_s'])}.")


def fmt_duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min ({seconds:.0f} s)"


HEADER = "<!-- Generated by scripts/verification_report.py at `make book`; do not edit, it is overwritten. -->"


def render(records: dict) -> str:
    """The generated page piece: the run line and each section's table, between markers."""
    tables = section_tables(records)
    parts = [HEADER, "", "<!-- run -->", run_line(records), "<!-- end run -->", ""]
    for s in SECTIONS:
        parts += [f"## {s.title}", "", f"<!-- section {s.slug} -->", *tables[s.slug], f"<!-- end {s.slug} -->", ""]
    return "\n".join(parts)


def render_skipped(reason: str) -> str:
    """The same markers with no numbers: the page says that none were produced."""
    note = f"*Not measured in this build ({md(reason)}): no numbers are shown.*"
    parts = [HEADER, "", "<!-- run -->",
             f"**The verification tests were not run in this build ({md(reason)}).** This page shows no measured "
             "errors; `make book` (or `python scripts/build_book.py` without `--no-verification`) measures them.",
             "<!-- end run -->", ""]
    for s in SECTIONS:
        parts += [f"## {s.title}", "", f"<!-- section {s.slug} -->", note, f"<!-- end {s.slug} -->", ""]
    return "\n".join(parts)


# -- notebook 01's drift / energy / cost table -----------------------------------------------------
def notebook_run() -> str:
    """Which run of notebook 01 wrote the results: its settings and end time (papermill's record)."""
    try:
        meta = json.loads(EXECUTED_01.read_text(encoding="utf-8"))["metadata"]["papermill"]
    except (OSError, KeyError, ValueError):
        return "notebook 01"
    quick = meta.get("parameters", {}).get("quick")
    setting = {True: "at its quick settings (`quick=True`)", False: "at its full settings"}.get(quick, "")
    end = (meta.get("end_time") or "")[:16].replace("T", " ")
    return f"notebook 01 {setting}" + (f", finished {end} UTC" if end else "")


def drift_table(csv: Path) -> list[str]:
    """One table per system, shaped to fit a page: a row per quantity, a column per
    stabilization, and in each cell the rotation parametrizations side by side (ZXZ / EP)."""
    import pandas as pd

    df = pd.read_csv(csv)
    keys = ["system", "rotation", "stabilization"]
    rotations = list(dict.fromkeys(df["rotation"]))
    short = {r: "EP" if r == "Euler parameters" else r for r in rotations}
    lines = [f"Each cell gives {' / '.join(f'{r}' for r in rotations)}"
             + (" (EP)" if "Euler parameters" in rotations else "") + ".", ""]
    for system, g in df.groupby("system", sort=False):
        stabs = list(dict.fromkeys(g["stabilization"]))
        cols = [c for c in df.columns if c not in keys and g[c].notna().any()]
        head = " / ".join(short[r] for r in rotations)
        lines += [f"**{md(str(system))}**", "", "| quantity | " + " | ".join(f"{md(s)} ({head})" for s in stabs) + " |",
                  "|---" * (len(stabs) + 1) + "|"]
        for c in cols:
            cells = []
            for stab in stabs:
                vals = []
                for r in rotations:
                    v = g.loc[(g["stabilization"] == stab) & (g["rotation"] == r), c]
                    vals.append("–" if v.empty or pd.isna(v.iloc[0]) else cell_number(c, v.iloc[0]))
                cells.append(" / ".join(vals))
            lines.append(f"| {md(c)} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines[:-1]


def cell_number(column: str, v) -> str:
    if "wall time" in column:
        return f"{v:.2f}"
    if float(v).is_integer() and abs(v) >= 1:
        return f"{int(v)}"
    return nowrap(fmt(v, sci=True))


def drift_numbers(csv: Path, checks_csv: Path) -> list[str]:
    """The comparisons the chapter draws from the table, computed from it."""
    import pandas as pd

    df = pd.read_csv(csv)
    out = []
    col = {k: next((c for c in df.columns if c.startswith(k)), None)
           for k in ("max|C|", "RHS evaluations", "projection ΔT", "max|CM − CM_ref|", "energy residual")}
    for system, g in df.groupby("system", sort=False):
        by = {s: g[g["stabilization"] == s] for s in ("none", "baumgarte", "projection")}
        if col["max|C|"] and all(len(v) for v in by.values()):
            c = {s: fmt(v[col["max|C|"]].max(), sci=True) for s, v in by.items()}
            out.append(f"{system}: largest max\\|C\\| {c['none']} m without stabilization, {c['baumgarte']} m with "
                       f"Baumgarte, {c['projection']} m with projection (over both parametrizations).")
        if col["RHS evaluations"] and len(by["none"]):
            ratios = []
            for stab in ("baumgarte", "projection"):
                per_rot = [f"{float(b) / float(n):.2f} ({rot})" for rot in g["rotation"].unique()
                           for n in by["none"].loc[by["none"]["rotation"] == rot, col["RHS evaluations"]]
                           for b in by[stab].loc[by[stab]["rotation"] == rot, col["RHS evaluations"]]]
                if per_rot:
                    ratios.append(f"{stab} {', '.join(per_rot)}")
            out.append(f"{system}: RHS evaluations relative to the unstabilized run: {'; '.join(ratios)}.")
        if col["projection ΔT"] and len(by["projection"]):
            out.append(f"{system}: the projections change the kinetic energy by at most "
                       f"{fmt(by['projection'][col['projection ΔT']].abs().max(), sci=True)} J.")
        if col["energy residual"] and g[col["energy residual"]].notna().any():
            out.append(f"{system}: the work–energy balance closes to {fmt(g[col['energy residual']].max(), sci=True)} J or "
                       "better in every run.")
        if col["max|CM − CM_ref|"] and g[col["max|CM − CM_ref|"]].notna().any():
            out.append(f"{system}: the CM path agrees with the reference run (ZXZ with Baumgarte) to "
                       f"{fmt(g[col['max|CM − CM_ref|']].max(), sci=True)} m in every run.")
    if checks_csv.exists():
        ch = pd.read_csv(checks_csv)
        top = ch[ch["check"].str.startswith("heavy top")]
        if len(top):
            items = "; ".join(f"{md(q)}: {fmt(v, sci=True)}" for q, v in zip(top["quantity"], top["value"]))
            out.append(f"{md(top['check'].iloc[0])}, from `results/01_checks.csv` (§5.1 of the notebook): {items}.")
    return [f"* {line}" for line in out]


def render_drift() -> str:
    csv = NOTEBOOK_RESULTS / "01_verification.csv"
    if not csv.exists():
        return "\n".join([HEADER, "", "*Notebook 01 has not written `results/01_verification.csv` in this build "
                          "(`make book` executes it first): no numbers are shown.*", ""])
    lines = [HEADER, "", f"From `notebooks/results/01_verification.csv`, written by {notebook_run()}.", "",
             *drift_table(csv), "", "Read from the table (computed from the same file):", "",
             *drift_numbers(csv, NOTEBOOK_RESULTS / "01_checks.csv"), ""]
    return "\n".join(lines)


# -- main --------------------------------------------------------------------------------------------
def write(out: Path, name: str, text: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    p = out / name
    p.write_text(text, encoding="utf-8")
    return p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", help="tables from this records file (of an earlier run) instead of running pytest")
    ap.add_argument("--skip", metavar="REASON", help="run nothing; the page says that no numbers were produced")
    ap.add_argument("--out", default=str(OUT), help="output folder (default: book/_generated)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    write(out, "verification_drift.md", render_drift())
    if args.skip:
        write(out, "verification.md", render_skipped(args.skip))
        (out / "verification.json").unlink(missing_ok=True)
        print(f"[verification] skipped ({args.skip}); {out / 'verification.md'} says so")
        return 0
    problems = coverage_problems()
    for p in problems:
        print(f"[verification] WARNING: {p}", file=sys.stderr)
    t0 = time.perf_counter()
    if args.records:
        records_path, status = Path(args.records), None
    else:
        records_path = out / "verification.json"
        out.mkdir(parents=True, exist_ok=True)
        status = run_tests(records_path)
    if not records_path.exists():
        write(out, "verification.md", render_skipped(f"pytest exited with status {status} and recorded nothing"))
        print(f"[verification] FAILED: pytest (exit {status}) wrote no records to {records_path}", file=sys.stderr)
        return 2
    records = json.loads(records_path.read_text(encoding="utf-8"))
    page = write(out, "verification.md", render(records))
    s = summary(records)
    print(f"[verification] {s['n_tests']} tests, {s['n_checks']} measured quantities ({s['n_comparisons']} "
          f"comparisons), {len(s['failed'])} failed; pytest {s['duration_s']:.0f} s, total "
          f"{time.perf_counter() - t0:.0f} s; wrote {page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}")
    if s["failed"] or (status not in (None, 0)):
        for nodeid in s["failed"]:
            print(f"[verification] FAILED: {nodeid}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
