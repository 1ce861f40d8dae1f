# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""Identification report: a markdown summary with tables and PNG plots (matplotlib, Agg)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from robot_id_ros.identify.hold_out_folds import describe


def _plt():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def _table(header, rows):
    out = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    out += ['| ' + ' | '.join(str(c) for c in r) + ' |' for r in rows]
    return out


def _g(x, d=4):
    return '' if x is None else (f'{x:.{d}g}' if np.isfinite(x) else str(x))


def plot_torques(path, t, measured, predicted, joint_names, title):
    plt = _plt()
    n = measured.shape[1]
    fig, axes = plt.subplots(n, 1, figsize=(9, 1.8 * n), sharex=True, squeeze=False)
    for j in range(n):
        ax = axes[j, 0]
        ax.plot(t, measured[:, j], lw=0.6, color='0.5', label='measured')
        ax.plot(t, predicted[:, j], lw=0.9, color='C0', label='predicted')
        ax.set_ylabel(f'{joint_names[j]}\n[Nm]', fontsize=7)
    axes[0, 0].legend(fontsize=7, loc='upper right')
    axes[0, 0].set_title(title, fontsize=9)
    axes[-1, 0].set_xlabel('t [s]')
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_friction(path, sweeps, friction, joint_names):
    plt = _plt()
    names = [j for j in joint_names if j in sweeps.points]
    fig, axes = plt.subplots(1, len(names), figsize=(3 * len(names), 2.8), squeeze=False)
    for ax, name in zip(axes[0], names):
        j = joint_names.index(name)
        pts = sweeps.points[name]
        v = np.array(pts['speed_rad_s'])
        ax.plot(np.r_[v, -v], np.r_[pts['half_difference_nm'],
                                    -np.array(pts['half_difference_nm'])], 'o', ms=4,
                label='sweeps (fwd-bwd)/2')
        vv = np.linspace(-1.1 * v.max(), 1.1 * v.max(), 400)
        Q = np.zeros((len(vv), len(joint_names)))
        Q[:, j] = vv
        ax.plot(vv, friction.torque(Q)[:, j] - friction.offset_nm[j], '-', label='model')
        ax.set_title(name, fontsize=8)
        ax.set_xlabel('qd [rad/s]')
    axes[0, 0].set_ylabel('friction [Nm]')
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_static(path, gravity, joint_names, point_mass=None):
    plt = _plt()
    meas = gravity.poses.tau
    pred = meas - gravity.residual_nm
    fig, ax = plt.subplots(figsize=(5, 4))
    for j, nm in enumerate(joint_names):
        ax.plot(meas[:, j], pred[:, j], 'o', ms=3, label=nm)
    lim = [meas.min(), meas.max()]
    ax.plot(lim, lim, 'k-', lw=0.5)
    ax.set_xlabel('measured static torque [Nm]')
    ax.set_ylabel('gravity model [Nm]')
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def write_report(result, out_dir, validations=(), title='Identification report'):
    """Write ``out_dir``/report.md and its PNGs for an ``IdentificationResult``.

    ``validations`` is an optional ``ValidationResult`` list. Returns the markdown path.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model = result.model
    names = list(model.joint_names)
    L = [
        f'# {title}', '',
        f'Robot `{model.robot.robot_name}`, joints {", ".join(names)}, tool frame '
        f'`{model.robot.tool_frame}`.', '', f'Method: {model.identification.get("method", "")}',
        '', '```'
    ]
    L += result.summary_lines + ['```', '']
    L += _plausibility_section(result)
    L += _selection_section(result)
    L += _dynamics_section(result, out, names)
    L += _friction_section(result, out, names)
    L += _gravity_section(result, out, names)
    L += _validation_sections(validations, out, names)
    path = out / 'report.md'
    path.write_text('\n'.join(L) + '\n')
    return path


_ACTIONS = {
    'accepted': 'The fit is written as made: no check below found anything.',
    'fallback': '**The least-squares fit was not written**: it is physically implausible '
                '(below). The model is the physically consistent fit with the URDF as prior.',
    'adjusted': '**The consistent fit was refitted** with the URDF as prior: it was implausible '
                '(below).',
    'kept': '**The fit is written as made although it is implausible** (below): the fallback '
            'was turned off (--no-plausibility-fallback).'}


def _plausibility_section(result):
    """Return the lines saying whether the fit was written as made, or replaced, and why."""
    pl = getattr(result, 'plausibility', None)
    if pl is None:
        return []
    L = ['## Plausibility', '', _ACTIONS[pl.action], '',
         'Checked (identify/plausibility.py, docs/theory.md#plausibility): no negative rotor '
         'inertia, friction or link mass; torque offsets within the torque each joint recorded; '
         'a physically consistent set within the fit\'s confidence region; no inertial base '
         'parameter farther from the URDF than its typical size unless the data tell it apart.',
         '']
    if pl.findings:
        L += _table(['finding', 'parameter', 'why'],
                    [[f.kind, f'`{f.parameter}`' if f.parameter else '',
                      f.text.replace('|', '\\|')] for f in pl.findings])
        L.append('')
    if pl.held:
        L += ['Held at the URDF\'s values: ' + ', '.join(f'`{h}`' for h in pl.held) + '.', '']
    if pl.action not in ('accepted', 'kept'):
        c = pl.consistency
        L += [f'Cost of the replacement: relative fit error {100 * c.relative_error_ls:.4g} % '
              f'-> {100 * c.relative_error:.4g} %.', '']
    if pl.unseen:
        L += ['Moved by the consistency constraints where the data are blind (more than their '
              'typical size from the URDF): ' + '; '.join(pl.unseen) + '.', '']
    return L


def _selection_section(result):
    """Return the lines of the options chosen by cross-validation (candidates, choice)."""
    sel = getattr(result, 'selection', None)
    if sel is None:
        return []
    L = ['## Options chosen from the data', '',
         f'Cross-validation, {describe(sel.hold_out, sel.folds)} ({sel.samples} samples, '
         f'{sel.time_s:.1f} s); held-out relative error above the noise floor; a candidate '
         'within one standard error of the best: the simpler; **bold**: chosen.', '']
    rows = []
    for c in sel.candidates:
        desc = ', '.join(f'{k}={"default" if v is None else v}' for k, v in c.settings.items())
        err = 'failed' + (f' ({c.note})' if c.note else '') if c.error is None else (
            f'{100 * c.error:.3f} %')
        rows.append([c.dimension, f'**{desc}**' if c.chosen else desc, err])
    L += _table(['dimension', 'candidate', 'held-out error'], rows)
    if sel.given:
        L += ['', 'Given (not searched): ' + ', '.join(sel.given) + '.']
    if sel.expected is not None:
        L += ['', sel.expected.line()[0].upper() + sel.expected.line()[1:] + '.']
    return L + ['']


def _dynamics_section(result, out, names):
    """Return the lines of the fit section (with its plots), if any."""
    L = []
    dyn = result.dynamics
    if dyn is not None:
        ls = dyn.ls
        L += ['## Fit', '']
        L += _table(['quantity', 'value'], [
            ['samples', dyn.samples], ['base parameters', dyn.base.n_base],
            ['condition number (weighted regressor)', _g(ls.condition_number)],
            ['condition number (unit-norm columns)', _g(ls.condition_number_scaled)],
            ['relative error (fit data)', f'{100 * ls.relative_error:.4g} %'],
            ['degrees of freedom', ls.dof]]
            + [[k.replace('_', ' ') + ' [s]', _g(v, 3)] for k, v in result.timings_s.items()])
        L += ['', '### Per joint', '']
        fm = result.fit_metrics
        L += _table(['joint', 'residual RMS [Nm]', 'noise std used [Nm]', 'relative error'], [[
            nm,
            _g(ls.residual_rms_nm[j]),
            _g(ls.sigma_nm[j]), f'{100 * fm["per_joint_relative_error"][j]:.3g} %'
        ] for j, nm in enumerate(names)])
        L += ['', f'### Base parameters ({100 * result.options.confidence:g} % intervals)', '']
        exprs = dyn.base.expressions()
        L += _table(['#', 'expression', 'value', 'std', 'interval', 'rel. std'], [[
            i + 1, f'`{e}`',
            _g(b),
            _g(s), f'[{_g(lo)}, {_g(hi)}]', f'{100 * s / abs(b):.2g} %' if b != 0 else ''
        ] for i, (e, b, s, lo, hi) in enumerate(zip(exprs, ls.beta, ls.std, ls.ci_low, ls.ci_high))
                                                                                  ])
        if dyn.base.unidentifiable():
            L += ['', 'No effect on torque (unidentifiable, kept at the URDF value): '
                  + ', '.join(dyn.base.unidentifiable())]
        if result.consistency is not None:
            L += ['', '## Physical consistency', '', result.consistency.summary()]
        for k, (tr, pred) in enumerate(zip(result.trajectories, result.fit_predicted)):
            f = f'fit_{k}.png'
            plot_torques(out / f, tr.t_s, tr.tau, pred, names,
                         f'fit: {Path(tr.source).name or "trajectory"}')
            L += ['', f'![fit {k}]({f})']
    return L


def _friction_section(result, out, names):
    """Return the lines of the friction section (with its plot)."""
    L = []
    f = result.model.friction
    L += ['', '## Friction', '']
    L += _table([
        'joint', 'fc+ [Nm]', 'fc- [Nm]', 'fv [Nm s/rad]', 'offset [Nm]', 'Stribeck [Nm]',
        'breakaway [Nm]'
    ], [[
        nm,
        _g(f.coulomb_pos_nm[j]),
        _g(f.coulomb_neg_nm[j]),
        _g(f.viscous_nm_s_rad[j]),
        _g(f.offset_nm[j]),
        _g(f.stribeck_nm[j]),
        _g(f.breakaway_nm[j])
    ] for j, nm in enumerate(names)])
    if f.has_presliding:
        L += ['', 'Presliding (Dahl) Coulomb term: after a reversal the Coulomb friction builds '
              'up over the travel, displacement q0 = '
              f'{1e3 * float(f.presliding_rad.max()):.3g} mrad '
              '(docs/theory.md).']
    if result.friction_sweeps is not None:
        plot_friction(out / 'friction.png', result.friction_sweeps,
                      result.friction_sweeps.friction, names)
        L += ['', '![friction](friction.png)']
    return L


def _gravity_section(result, out, names):
    """Return the lines of the static gravity section, if any."""
    L = []
    if result.gravity is not None:
        g = result.gravity
        L += [
            '', '## Static gravity', '',
            f'{len(g.poses)} poses; {len(g.values)} of {len(g.structural)} '
            'structural gravity combinations identified.', ''
        ]
        L += _table(['combination', 'value', 'std'],
                    [[f'`{e}`', _g(v), _g(s)]
                     for e, v, s in zip(g.base.expressions(), g.values, g.ls.std)])
        if g.dropped:
            L += ['', 'Dropped (kept at the URDF value):', '']
            L += [f'- `{d["expression"]}`: {d["reason"]}' for d in g.dropped]
        pm = result.point_mass
        L.append('')
        L += _table(['joint', 'static residual RMS [Nm]', 'point-mass baseline RMS [Nm]'], [[
            nm,
            _g(np.sqrt(np.mean(g.residual_nm[:, j]**2))),
            _g(np.sqrt(np.mean(pm.residual_nm[:, j]**2)))
        ] for j, nm in enumerate(names)])
        plot_static(out / 'static.png', g, names)
        L += ['', '![static](static.png)']
    return L


def _validation_sections(validations, out, names):
    """Return the lines of one section per validation run."""
    L = []
    for k, v in enumerate(validations):
        m = v.metrics
        L += ['', f'## Validation: {m.get("source", "")}', '',
              f'relative error {100 * m["relative_error"]:.4g} % (as recorded), '
              f'{100 * m.get("relative_error_filtered", np.nan):.4g} % (measured low-passed at '
              f'{m.get("filter_hz", np.nan):g} Hz); {m["samples"]} samples', '']
        L += _table(['joint', 'RMSE [Nm]', 'relative error'],
                    [[nm, _g(m['rmse_nm'][j]), f'{100 * m["per_joint_relative_error"][j]:.3g} %']
                     for j, nm in enumerate(names)])
        fn = f'validation_{k}.png'
        plot_torques(out / fn, v.trajectory.t_s, v.trajectory.tau, v.predicted, names,
                     f'validation: {Path(m.get("source", "")).name}')
        L += ['', f'![validation {k}]({fn})']
    return L
