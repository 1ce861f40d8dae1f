# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""A physically implausible fit is not written as made (identify/plausibility.py).

Synthetic youBot data with a planted fault whose effect is known: a torque that only a negative
rotor inertia explains, a spring on a joint that barely moves (the fit trades it for a torque
offset far beyond anything the joint recorded), noise that hides some inertial combinations (the
fit wanders from the URDF where the data cannot tell), and a recording at rest with a prior (a
traceback before). Each falls back to the physically consistent fit and says why; a fit of data
that the model family explains is written as made.
"""
import numpy as np
import pytest

from test_identification import FRICTION, SIGMA, fourier_trajectory, perturbed, synthetic_series
from robot_id_ros.identify import IdentificationOptions, identify
from robot_id_ros.identify.consistency import typical_parameter_size
from robot_id_ros.identify.report import write_report
from robot_id_ros.io.model_file import load_model
from robot_id_ros.model.pseudo_inertia import is_physically_consistent
from robot_id_ros.model.robot import youbot_model

FIXED = dict(auto_options=False, friction=True, offset=True)


def _run(truth=None, seed=5, sigma=SIGMA, plant=None):
    """(youBot model, a 3-period excitation measured on ``truth``, its (Q, QD, QDD)).

    ``plant(Q, QD, QDD)`` alters the motion in place and returns a torque to add (or None).
    """
    rng = np.random.default_rng(seed)
    robot = youbot_model()
    truth = perturbed(robot, rng) if truth is None else truth(robot)
    t, Q, QD, QDD = fourier_trajectory(robot, rng, period_s=8.0, periods=3)
    extra = plant(Q, QD, QDD) if plant else None
    s, _ = synthetic_series(truth, FRICTION, t, Q, QD, QDD, sigma, rng)
    if extra is not None:
        s.effort += extra
    return robot, s, (Q, QD, QDD)


def _kinds(res):
    return {(f.kind, f.parameter) for f in res.plausibility.findings}


def test_a_fit_the_model_explains_is_written_as_made():
    robot, s, _ = _run()
    res = identify(robot, [s], options=IdentificationOptions(**FIXED))
    pl = res.plausibility
    assert pl.action == 'accepted' and not pl.findings
    assert res.consistency is None
    assert np.array_equal(res.model.parameters, res.dynamics.theta)
    assert pl.realisable_chi2 < pl.realisable_limit
    assert res.model.identification['plausibility']['action'] == 'accepted'


def test_negative_rotor_inertia_falls_back_to_the_consistent_fit(tmp_path):
    def negative_rotor(Q, QD, QDD):
        out = np.zeros_like(Q)
        out[:, 2] = -0.05 * QDD[:, 2]    # a rotor inertia of -0.05 kg m^2 on joint 3
        return out

    robot, s, _ = _run(plant=negative_rotor)
    res = identify(robot, [s], options=IdentificationOptions(rotor_inertia=True, **FIXED))
    pl, m = res.plausibility, res.model
    ia3 = m.regressor.names.index('Ia3')
    assert res.dynamics.theta[ia3] < -0.04            # the least-squares fit found the plant
    assert pl.action == 'fallback' and ('negative', 'Ia3') in _kinds(res)
    assert m.parameters[ia3] >= -1e-9
    assert is_physically_consistent(m.parameters, robot.n, tol=1e-9)[0]
    # the price is the data's: the consistent fit explains the torque worse than the fit
    assert pl.consistency.relative_error > pl.consistency.relative_error_ls
    assert m.identification['method'].endswith('physical consistency (LMI)')
    m.save(tmp_path / 'm.yaml')
    loaded = load_model(tmp_path / 'm.yaml')   # the loader checks a consistent fit's inertias
    assert loaded.identification['plausibility']['findings'][0]['parameter'] == 'Ia3'
    text = write_report(res, tmp_path / 'rep').read_text()
    assert '## Plausibility' in text and 'The least-squares fit was not written' in text
    assert '`Ia3`' in text


def test_a_spring_on_a_still_joint_is_not_written_as_a_torque_offset():
    amplitude_rad, spring_nm_rad2 = 0.03, 300.0

    def still_joint_with_spring(Q, QD, QDD):
        c = Q[:, 1].mean()
        f = amplitude_rad / np.abs(Q[:, 1] - c).max()
        Q[:, 1] = c + f * (Q[:, 1] - c)
        QD[:, 1] *= f
        QDD[:, 1] *= f
        out = np.zeros_like(Q)
        out[:, 1] = spring_nm_rad2 * (Q[:, 1] - c) ** 2
        return out

    robot, s, _ = _run(plant=still_joint_with_spring)
    res = identify(robot, [s], options=IdentificationOptions(**FIXED))
    fo2 = res.model.regressor.names.index('fo2')
    recorded = np.abs(s.effort[:, 1]).max()
    assert abs(res.dynamics.theta[fo2]) > 10 * recorded   # the least-squares fit's offset
    assert ('offset', 'fo2') in _kinds(res) and res.plausibility.action == 'fallback'
    assert abs(res.model.parameters[fo2]) <= res.plausibility.offset_max_nm[1] + 1e-6
    assert res.plausibility.offset_max_nm[1] <= recorded + 1e-9


def test_departures_the_data_cannot_tell_from_the_urdf_are_held_at_it():
    """The truth is the URDF; the torque noise is 30 x the usual, so the data see some inertial
    combinations only roughly: the fit's values of those lie several typical sizes away, inside
    their intervals. They are held at the URDF's values, which is the truth here."""
    robot, s, _ = _run(truth=lambda r: r.copy(), sigma=30 * SIGMA)
    res = identify(robot, [s], options=IdentificationOptions(**FIXED))
    dyn, pl = res.dynamics, res.plausibility
    assert pl.action == 'fallback' and pl.held
    assert {k for k, _ in _kinds(res)} == {'unsupported'}
    reg = dyn.regressor
    B = dyn.base.matrix(reg.p)
    truth = B @ dyn.theta_reference
    size = np.abs(B) @ typical_parameter_size(dyn.theta_reference, reg.n, reg.p, reg.n_inertial)
    held = [list(dyn.base.names).index(h) for h in pl.held]
    assert np.all(np.abs(dyn.ls.beta[held] - truth[held]) > size[held])
    assert np.allclose(res.model.base_values[held], truth[held], rtol=1e-6, atol=1e-9)
    # closer to the truth than the fit, in typical sizes, over every inertial combination
    inertial = np.any(np.abs(B[:, :reg.n_inertial]) > 0, axis=1)
    err_fit = np.abs(dyn.ls.beta - truth)[inertial] / size[inertial]
    err_model = np.abs(res.model.base_values - truth)[inertial] / size[inertial]
    assert err_model.sum() < err_fit.sum()


def test_a_recording_at_rest_with_a_prior_gives_a_model_not_a_traceback():
    """Every joint still (encoder jitter only): with --prior-weight the option search's slow-row
    candidates left no row to weigh and the fit ended in numpy's LinAlgError. Now the model is
    made, and every inertial combination the data do not excite stays at the URDF's value."""
    rng = np.random.default_rng(5)
    robot = youbot_model()
    truth = perturbed(robot, rng)
    t = np.arange(600) / 200.0
    q0 = 0.5 * (robot.limits.lower_rad + robot.limits.upper_rad)
    Q = q0 + 2e-4 * rng.standard_normal((len(t), robot.n))
    zero = np.zeros_like(Q)
    s, _ = synthetic_series(truth, FRICTION, t, Q, zero, zero, SIGMA, rng)
    s.qd = None
    res = identify(robot, [s], options=IdentificationOptions(prior_weight=1.0),
                   given=['prior_weight'])
    pl, dyn = res.plausibility, res.dynamics
    # replaced either way: the least-squares fit, or the consistent one the search chose
    assert pl.action in ('fallback', 'adjusted') and pl.held
    held = [list(dyn.base.names).index(h) for h in pl.held]
    ref = dyn.base.to_base(dyn.theta_reference)
    assert np.allclose(res.model.base_values[held], ref[held], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize('kind', ['negative', 'offset', 'unrealisable', 'unsupported'])
def test_every_kind_of_finding_is_documented(kind):
    from pathlib import Path
    theory = (Path(__file__).resolve().parents[2] / 'docs' / 'theory.md').read_text()
    section = theory[theory.index('## Plausibility'):]
    assert f'`{kind}`' in section
