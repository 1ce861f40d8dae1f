# Copyright 2026 The robot_id_ros Authors
# SPDX-License-Identifier: Apache-2.0
"""The documentation: docs/nodes.md is exactly what the nodes declare (robot_id_ros.ros.docs), and
README.md stays a short entry page whose links and tables match the package.

Regenerate docs/nodes.md after changing a node's parameters, topics or services:

    python tools/update_docs.py        (or: make docs)

The node tables live only in docs/nodes.md; README.md links into it.
"""
import importlib
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / 'README.md'
DOCS = ROOT / 'docs'
README_MAX_BYTES = 12_000
REGENERATE = 'regenerate: python tools/update_docs.py (or make docs)'
LINK = re.compile(r'\]\(([^)\s]+)\)')


@pytest.fixture(scope='module')
def node_docs(node_infos):
    """The nodes' declarations and their rendered tables."""
    from robot_id_ros.ros import docs

    return node_infos, docs.render_markdown(node_infos)


def _anchors(path):
    """GitHub's anchors of a markdown file's headings."""
    out = set()
    for line in path.read_text().splitlines():
        m = re.match(r'#+\s+(.*)', line)
        if m:
            slug = re.sub(r'[^\w\- ]', '', m.group(1).strip().lower()).replace(' ', '-')
            out.add(slug)
    return out


def _table_rows(text, heading):
    """The first column of the rows of the table under ``heading`` (header row left out)."""
    block = text.split(heading, 1)[1].split('\n## ', 1)[0]
    return re.findall(r'^\| (.+?) \|', block, re.M)[1:]


def test_docs_nodes_md_is_generated(node_docs):
    path = DOCS / 'nodes.md'
    assert path.is_file(), 'docs/nodes.md is missing; ' + REGENERATE
    assert path.read_text() == node_docs[1], (
        "docs/nodes.md differs from the nodes' declarations; " + REGENERATE)


def test_readme_is_short_and_holds_no_generated_tables():
    text = README.read_text()
    size = len(text.encode())
    assert size < README_MAX_BYTES, (f'README.md is {size} bytes (limit {README_MAX_BYTES}): move '
                                     'detail into docs/ and link to it')
    assert '<!-- nodes:begin -->' not in text and '| `qos_depth` |' not in text, (
        'the node tables live only in docs/nodes.md')
    assert '(docs/nodes.md)' in text


def test_every_docs_link_resolves():
    """Every relative .md link (with its #anchor) in README.md and docs/*.md points at a file and
    a heading that exist."""
    pages = [README] + sorted(DOCS.glob('*.md'))
    checked = 0
    for page in pages:
        for target in LINK.findall(page.read_text()):
            if '://' in target or target.startswith('#'):
                continue
            name, _, anchor = target.partition('#')
            path = (page.parent / name).resolve()
            assert path.is_file(), f'{page.name}: link {target} points at no file'
            if anchor:
                assert anchor in _anchors(path), f'{page.name}: {target} names no heading'
            checked += 1
    readme_docs = [t for t in LINK.findall(README.read_text()) if t.startswith('docs/')]
    assert {t.split('#')[0] for t in readme_docs} >= {
        f'docs/{n}.md' for n in ('results', 'youbot', 'workflows', 'nodes', 'model_file', 'limits',
                                 'theory')}
    assert checked >= len(readme_docs)


def test_readme_lists_every_node_with_a_link_into_docs_nodes_md():
    from robot_id_ros.ros import docs

    rows = _table_rows(README.read_text(), '## Nodes at a glance')
    listed = [re.search(r'`([\w-]+)`', r).group(1) for r in rows]
    assert rows == [f'[`{e}`](docs/nodes.md#{e})' for e in listed]
    assert sorted(listed) == sorted(docs.EXECUTABLES)


def test_readme_lists_every_robot_id_subcommand():
    from robot_id_ros.cli.main import COMMANDS

    rows = _table_rows(README.read_text(), '## The `robot-id` command')
    listed = [re.match(r'`robot-id ([\w-]+)', r).group(1) for r in rows]
    assert listed == [c.replace('_', '-') for c in COMMANDS]


def test_readme_results_are_figures_of_docs_results_md():
    """The README's results table quotes docs/results.md (one source for each measured figure)."""
    number = re.compile(r'\d+(?:[.,]\d+)+|\d+')
    full = set(number.findall((DOCS / 'results.md').read_text()))
    block = README.read_text().split('## Results', 1)[1].split('\n## ', 1)[0]
    quoted = set(number.findall(block))
    assert quoted and quoted <= full, sorted(quoted - full)


def test_youbot_identify_command_is_config_identification_yaml():
    """docs/youbot.md's `robot-id identify` flags give the same fit options as the identification
    node's config/identification.yaml (which the demo reads)."""
    import argparse

    from robot_id_ros.cli import identify as cli_identify
    from robot_id_ros.demo.pipeline import identification_options

    text = (DOCS / 'youbot.md').read_text().replace('\\\n', ' ')
    line = next(x.strip() for x in text.splitlines() if x.strip().startswith('robot-id identify'))
    parser = argparse.ArgumentParser()
    cli_identify.add_parser(parser.add_subparsers())
    args = parser.parse_args(shlex.split(line)[1:])
    got = cli_identify.options_from_args(args, 5)
    assert got == identification_options(ROOT / 'config' / 'identification.yaml')


def test_generator_covers_every_node_executable():
    from robot_id_ros.ros import docs
    text = (ROOT / 'setup.py').read_text()
    block = text[text.index('NODES = {'):text.index('}', text.index('NODES = {'))]
    assert sorted(docs.EXECUTABLES) == sorted(
        re.findall(r"'([\w-]+)': 'robot_id_ros\.ros\.nodes\.", block))


def test_tables_list_every_declared_parameter_and_endpoint(node_docs, rclpy_context, tmp_path):
    """The rendered tables hold each node's parameters (checked against a fresh instance,
    not against the generator's own reading) and a row per topic/service it created."""
    from rclpy.parameter import Parameter

    from robot_id_ros.ros import docs

    infos, text = node_docs
    for d in infos:
        assert (f'### `{d.executable}`') in text
        block = text.split(f'### `{d.executable}`', 1)[1].split('\n### ', 1)[0]
        rows = re.findall(r'^\| `([^`]+)` \| ', block, re.M)
        cls = docs.node_class(importlib.import_module(d.module))
        files = {p.name: str(docs.FILE_FIXTURES[p.name](tmp_path)) for p in d.parameters
                 if p.default == '' and p.name in docs.FILE_FIXTURES}
        node = cls(context=rclpy_context,
                   parameter_overrides=[Parameter(k, value=v) for k, v in files.items()])
        try:
            own = [n for n in node._parameters if n not in docs.BUILTIN_PARAMETERS]
            pubs = {p.topic_name for p in node.publishers} - docs.BUILTIN_TOPICS
            subs = {s.topic_name for s in node.subscriptions} - docs.BUILTIN_TOPICS
        finally:
            node.destroy_node()
        assert rows == own, f'{d.executable}: parameter rows {rows} != declared {own}'
        n_pub = len(re.findall(r'^\| publishes \|', block, re.M))
        n_sub = len(re.findall(r'^\| subscribes \|', block, re.M))
        assert (n_pub, n_sub) == (len(pubs), len(subs)), (d.executable, pubs, subs)


def test_estimator_table_shows_the_contract_interface(node_docs):
    """shared/interfaces.md: estimator in joint_states; out ~/wrench, ~/external_joint_torques,
    ~/contact, /diagnostics; services ~/tare, ~/reset."""
    infos, _ = node_docs
    est = {d.executable: d for d in infos}['wrench_estimator']
    got = {(e.kind, e.name, e.type) for e in est.endpoints}
    for want in [('subscribes', 'joint_states', 'sensor_msgs/msg/JointState'),
                 ('publishes', '~/wrench', 'geometry_msgs/msg/WrenchStamped'),
                 ('publishes', '~/external_joint_torques', 'sensor_msgs/msg/JointState'),
                 ('publishes', '~/contact', 'std_msgs/msg/Bool'),
                 ('publishes', '/diagnostics', 'diagnostic_msgs/msg/DiagnosticArray'),
                 ('service', '~/tare', 'std_srvs/srv/Trigger'),
                 ('service', '~/reset', 'std_srvs/srv/Trigger')]:
        assert want in got, (want, sorted(got))
