# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
import numpy as np
import pytest
import yaml

from robot_id_ros.model.base_parameters import compute_base_parameters
from robot_id_ros.model.friction import FrictionModel
from robot_id_ros.model.robot import default_urdf_path, youbot_model
from robot_id_ros.io.model_file import (IdentifiedModel, ModelFileError, Payload, load_model,
                                        nominal_model)
from robot_id_ros.model.regressor import Regressor, RegressorOptions

FRICTION = FrictionModel([0.8, 0.6, 0.5, 0.2, 0.15], [0.7, 0.5, 0.45, 0.2, 0.15],
                         [1.0, 0.8, 0.6, 0.1, 0.1], [0.0] * 5)


def _identified():
    robot = youbot_model()
    opts = RegressorOptions(friction=True, rotor_inertia=True)
    reg = Regressor(robot, opts)
    base = compute_base_parameters(reg)
    rng = np.random.default_rng(0)
    theta = reg.reference_parameters()
    for j in range(5):  # friction columns: Ia, fv, fc per joint
        theta[reg.n_inertial + 3 * j:reg.n_inertial + 3 * j +
              3] = [0.01, FRICTION.viscous_nm_s_rad[j], FRICTION.coulomb_pos_nm[j]]
    beta = base.to_base(theta) * (1 + 0.05 * rng.normal(size=base.n_base))
    theta_id = base.to_standard(beta, theta)
    cov = np.diag((0.01 * np.abs(beta) + 1e-6) ** 2)
    return IdentifiedModel(robot, opts, theta_id, FrictionModel.zeros(5), base=base,
                           base_values=beta, base_std=np.sqrt(np.diag(cov)), base_covariance=cov,
                           drive_gains_nm_per_a=np.array([5.226, 5.226, 3.35, 3.621, 3.479]),
                           residual_std_nm=np.full(5, 0.05), identification={
                               'method': 'test',
                               'samples': 10
                           }, validation={'relative_error': 0.01})


def test_round_trip_reproduces_torque_and_fields(tmp_path):
    m = _identified()
    path = tmp_path / 'model.yaml'
    m.save(path)
    m2 = load_model(path, urdf_path=default_urdf_path(), joint_names=m.joint_names)
    rng = np.random.default_rng(1)
    for _ in range(5):
        q, qd, qdd = rng.normal(size=(3, 5))
        np.testing.assert_allclose(m2.torque(q, qd, qdd), m.torque(q, qd, qdd), atol=1e-12)
    np.testing.assert_allclose(m2.base_values, m.base_values)
    np.testing.assert_allclose(m2.base_covariance, m.base_covariance)
    np.testing.assert_allclose(m2.drive_gains_nm_per_a, m.drive_gains_nm_per_a)
    # symmetric Coulomb column fc: both directions take the identified value
    np.testing.assert_allclose(m2.friction.coulomb_neg_nm, m.friction.coulomb_pos_nm)
    np.testing.assert_allclose(m2.friction.viscous_nm_s_rad, m.friction.viscous_nm_s_rad)
    assert m2.identification['samples'] == 10 and m2.validation['relative_error'] == 0.01
    d = yaml.safe_load(path.read_text())
    assert d['schema_version'] == 1 and d['robot']['joint_names'][0] == 'arm_joint_1'
    assert d['base_parameters']['values'][0]['expression'].startswith('ZZ1')
    units = {p['name']: p['unit'] for p in d['parameters']}
    assert units['m2'] == 'kg' and units['fv1'] == 'Nm s/rad' and units['Ia3'] == 'kg m^2'


def test_identified_torque_equals_base_regressor_prediction():
    m = _identified()
    W = m.regressor.stack(*np.random.default_rng(2).normal(size=(3, 8, 5)))
    Q, QD, QDD = np.random.default_rng(2).normal(size=(3, 8, 5))
    pred = m.predict(Q, QD, QDD).ravel()
    np.testing.assert_allclose(pred, m.base.base_regressor(W) @ m.base_values, atol=1e-9)


def test_payload_changes_gravity_by_mass_times_jacobian():
    m = nominal_model(youbot_model())
    q = np.array([2.9, 1.2, -1.5, 1.7, 2.9])
    g0 = m.robot.gravity_torque(q)
    com_tool = np.array([0.0, 0.01, 0.03])
    m.set_payload(Payload(0.3, com_tool))
    g1 = m.robot.gravity_torque(q)
    # J^T of the payload point times its weight
    import pinocchio as pin
    r = youbot_model()
    fid = r.model.addFrame(
        pin.Frame('p', r.model.frames[r.tool_frame_id].parentJoint, r.tool_frame_id,
                  r.model.frames[r.tool_frame_id].placement * pin.SE3(np.eye(3), com_tool),
                  pin.FrameType.OP_FRAME))
    r.data = r.model.createData()
    J = pin.computeFrameJacobian(r.model, r.data, q, fid, pin.LOCAL_WORLD_ALIGNED)[:3]
    np.testing.assert_allclose(g1 - g0, -J.T @ (0.3 * np.array([0, 0, -9.81])), atol=1e-9)
    m.set_payload(None)
    np.testing.assert_allclose(m.robot.gravity_torque(q), g0, atol=1e-12)


def test_wrong_joint_set_urdf_and_version_are_named(tmp_path):
    m = _identified()
    path = tmp_path / 'model.yaml'
    m.save(path)
    with pytest.raises(ModelFileError, match='made for joints arm_joint_1'):
        load_model(path, joint_names=['arm_joint_1', 'arm_joint_2'])
    other = tmp_path / 'other.urdf'
    other.write_text(default_urdf_path().read_text().replace('xyz="0 0 0.155"',
                                                             'xyz="0 0 0.165"'))
    with pytest.raises(ModelFileError, match='was made for URDF youbot_arm.urdf'):
        load_model(path, urdf_path=other)
    d = yaml.safe_load(path.read_text())
    d['schema_version'] = 99
    bad = tmp_path / 'v99.yaml'
    bad.write_text(yaml.safe_dump(d))
    with pytest.raises(ModelFileError, match='schema_version 99'):
        load_model(bad)
    (tmp_path / 'junk.yaml').write_text('a: [1, 2')
    with pytest.raises(ModelFileError, match='not valid YAML'):
        load_model(tmp_path / 'junk.yaml')
    (tmp_path / 'other_kind.yaml').write_text('a: 1')
    with pytest.raises(ModelFileError, match='not a robot_id_ros model file'):
        load_model(tmp_path / 'other_kind.yaml')
    with pytest.raises(ModelFileError, match='not found'):
        load_model(tmp_path / 'missing.yaml')
    del d['parameters'][3]
    d['schema_version'] = 1
    bad.write_text(yaml.safe_dump(d))
    with pytest.raises(ModelFileError, match='lacks parameter'):
        load_model(bad)


def test_save_is_atomic_and_leaves_no_temp(tmp_path):
    m = _identified()
    m.save(tmp_path / 'm.yaml')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['m.yaml']


@pytest.mark.parametrize('change, named', [
    (lambda c: c[:-1], 'is 41x42, must be 42x42'),
    (lambda c: c + np.triu(np.full_like(c, 1e-3), 1), 'is not symmetric'),
    (lambda c: c - np.diag(np.full(len(c), 1.0)), 'is not positive semi-definite'),
    (lambda c: np.where(np.eye(len(c)) > 0, np.nan, c), 'non-finite'),
])
def test_a_covariance_that_is_not_one_is_refused(tmp_path, change, named):
    """Shape, symmetry, positive semi-definiteness, finiteness of base_parameters.covariance."""
    m = _identified()
    path = tmp_path / 'model.yaml'
    m.save(path)
    d = yaml.safe_load(path.read_text())
    cov = np.array(d['base_parameters']['covariance'])
    assert cov.shape == (42, 42)
    d['base_parameters']['covariance'] = change(cov).tolist()
    bad = tmp_path / 'bad.yaml'
    bad.write_text(yaml.safe_dump(d, sort_keys=False))
    with pytest.raises(ModelFileError) as err:
        load_model(bad)
    msg = str(err.value)
    assert '\n' not in msg and 'base_parameters.covariance' in msg and named in msg, msg
