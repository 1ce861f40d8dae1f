"""README.md's node tables are exactly what the nodes declare (robot_id_ros.ros.docs).

Regenerate after changing a node's parameters, topics or services:

    python -m robot_id_ros.ros.docs > docs/nodes.md

and paste docs/nodes.md between ``<!-- nodes:begin -->`` and ``<!-- nodes:end -->`` in README.md.
"""
import importlib
import re
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = '<!-- nodes:begin -->', '<!-- nodes:end -->'
REGENERATE = ('regenerate: python -m robot_id_ros.ros.docs > docs/nodes.md, then paste docs/nodes.md between '
              f'{BEGIN} and {END} in README.md')


@pytest.fixture(scope='module')
def node_docs(node_infos):
    """The nodes' declarations and their rendered tables."""
    from robot_id_ros.ros import docs

    return node_infos, docs.render_markdown(node_infos)


def _section(text):
    i, j = text.index(BEGIN) + len(BEGIN), text.index(END)
    assert i <= j, f'{END} comes before {BEGIN}'
    return text[i:j].strip('\n')


def test_readme_nodes_section_is_generated(node_docs):
    readme = (ROOT / 'README.md').read_text() if (ROOT / 'README.md').is_file() else ''
    if BEGIN not in readme or END not in readme:
        pytest.skip(f'README.md has no {BEGIN} ... {END} section yet')
    section = _section(readme)
    generated = node_docs[1].strip('\n')
    assert section == generated, 'README.md node tables differ from the nodes\' declarations; ' + REGENERATE


def test_docs_nodes_md_is_generated(node_docs):
    path = ROOT / 'docs' / 'nodes.md'
    assert path.is_file(), 'docs/nodes.md is missing; ' + REGENERATE
    assert path.read_text() == node_docs[1], 'docs/nodes.md differs from the nodes\' declarations; ' + REGENERATE


def test_generator_covers_every_node_executable():
    from robot_id_ros.ros import docs
    text = (ROOT / 'setup.py').read_text()
    block = text[text.index('NODES = {'):text.index('}', text.index('NODES = {'))]
    assert sorted(docs.EXECUTABLES) == sorted(re.findall(r"'([\w-]+)': 'robot_id_ros\.ros\.nodes\.", block))


def test_tables_list_every_declared_parameter_and_endpoint(node_docs, rclpy_context, tmp_path):
    """The rendered tables hold each existing node's parameters (checked against a fresh instance,
    not against the generator's own reading) and a row per topic/service it created."""
    from rclpy.parameter import Parameter

    from robot_id_ros.ros import docs

    infos, text = node_docs
    present = [d for d in infos if not d.missing]
    for d in infos:
        exists = (ROOT / 'robot_id_ros' / 'ros' / 'nodes' / f'{d.executable}.py').is_file()
        assert bool(d.missing) != exists, d.executable
        assert (f'### `{d.executable}`') in text
    if not present:
        pytest.skip('no node module exists yet')
    for d in present:
        block = text.split(f'### `{d.executable}`', 1)[1].split('\n### ', 1)[0]
        rows = re.findall(r'^\| `([^`]+)` \| ', block, re.M)
        cls = docs.node_class(importlib.import_module(d.module))
        files = {p.name: str(docs.FILE_FIXTURES[p.name](tmp_path)) for p in d.parameters
                 if p.default == '' and p.name in docs.FILE_FIXTURES}
        node = cls(context=rclpy_context, parameter_overrides=[Parameter(k, value=v) for k, v in files.items()])
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
    if est.missing:
        pytest.skip(est.missing)
    got = {(e.kind, e.name, e.type) for e in est.endpoints}
    for want in [('subscribes', 'joint_states', 'sensor_msgs/msg/JointState'),
                 ('publishes', '~/wrench', 'geometry_msgs/msg/WrenchStamped'),
                 ('publishes', '~/external_joint_torques', 'sensor_msgs/msg/JointState'),
                 ('publishes', '~/contact', 'std_msgs/msg/Bool'),
                 ('publishes', '/diagnostics', 'diagnostic_msgs/msg/DiagnosticArray'),
                 ('service', '~/tare', 'std_srvs/srv/Trigger'), ('service', '~/reset', 'std_srvs/srv/Trigger')]:
        assert want in got, (want, sorted(got))
