"""Baseline: the schema as of docbot 0.1, and the adoption of databases made before migrations.

Before Alembic, `create_all` made the tables at start-up and never added a column to an
existing one. So this revision creates each table that is missing and, where a table exists,
adds the columns it lacks (nullable: its old rows have no value), which brings any earlier
docbot database to this schema.

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    _create_or_complete('auditentry',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('action_id', sa.Integer(), nullable=False),
    sa.Column('actor', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('event', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('detail', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_auditentry_action_id', 'auditentry', ['action_id'], unique=False, if_not_exists=True)

    _create_or_complete('conversation',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('platform', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('tenant', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('channel', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('thread', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('platform', 'tenant', 'channel', 'thread')
    )
    _create_or_complete('feedback',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('message_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('helpful', sa.Boolean(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('message_id', 'user_id')
    )
    op.create_index('ix_feedback_message_id', 'feedback', ['message_id'], unique=False, if_not_exists=True)

    _create_or_complete('indexrun',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('trigger', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('holder', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('full', sa.Boolean(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('seconds', sa.Float(), nullable=False),
    sa.Column('added', sa.Integer(), nullable=False),
    sa.Column('updated', sa.Integer(), nullable=False),
    sa.Column('unchanged', sa.Integer(), nullable=False),
    sa.Column('deleted', sa.Integer(), nullable=False),
    sa.Column('chunks', sa.Integer(), nullable=False),
    sa.Column('errors', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    _create_or_complete('lease',
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('holder', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('expires_at', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    _create_or_complete('missingsource',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('since', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    _create_or_complete('seenevent',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    _create_or_complete('stoprequest',
    sa.Column('run_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('run_id')
    )
    _create_or_complete('turntrace',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('conversation_id', sa.Integer(), nullable=False),
    sa.Column('run_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('original', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('rewritten', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('rewrite_method', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('intent', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('confidence', sa.Float(), nullable=False),
    sa.Column('route_reason', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('steps', sa.JSON(), nullable=True),
    sa.Column('sources', sa.JSON(), nullable=True),
    sa.Column('timings', sa.JSON(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_turntrace_conversation_id', 'turntrace', ['conversation_id'], unique=False, if_not_exists=True)
    op.create_index('ix_turntrace_run_id', 'turntrace', ['run_id'], unique=False, if_not_exists=True)

    _create_or_complete('message',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('conversation_id', sa.Integer(), nullable=False),
    sa.Column('role', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('text', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('run_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('rewritten', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('rewrite_method', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('intent', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('confidence', sa.Float(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('sources', sa.JSON(), nullable=True),
    sa.Column('timings', sa.JSON(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['conversation_id'], ['conversation.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sqlite_autoincrement=True
    )
    op.create_index('ix_message_conversation_id', 'message', ['conversation_id'], unique=False, if_not_exists=True)
    op.create_index('ix_message_run_id', 'message', ['run_id'], unique=False, if_not_exists=True)

    _create_or_complete('pendingaction',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('conversation_id', sa.Integer(), nullable=False),
    sa.Column('run_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('requester', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('action', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('summary', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('params', sa.JSON(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('result', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('decided_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('decided_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['conversation_id'], ['conversation.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sqlite_autoincrement=True
    )
    op.create_index('ix_pendingaction_conversation_id', 'pendingaction', ['conversation_id'], unique=False, if_not_exists=True)
    op.create_index('ix_pendingaction_status', 'pendingaction', ['status'], unique=False, if_not_exists=True)



def downgrade() -> None:
    with op.batch_alter_table('pendingaction', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pendingaction_status'))
        batch_op.drop_index(batch_op.f('ix_pendingaction_conversation_id'))

    op.drop_table('pendingaction')
    with op.batch_alter_table('message', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_message_run_id'))
        batch_op.drop_index(batch_op.f('ix_message_conversation_id'))

    op.drop_table('message')
    with op.batch_alter_table('turntrace', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_turntrace_run_id'))
        batch_op.drop_index(batch_op.f('ix_turntrace_conversation_id'))

    op.drop_table('turntrace')
    op.drop_table('stoprequest')
    op.drop_table('seenevent')
    op.drop_table('missingsource')
    op.drop_table('lease')
    op.drop_table('indexrun')
    with op.batch_alter_table('feedback', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_feedback_message_id'))

    op.drop_table('feedback')
    op.drop_table('conversation')
    with op.batch_alter_table('auditentry', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_auditentry_action_id'))

    op.drop_table('auditentry')


def _create_or_complete(name: str, *elements, **options) -> None:
    """Create the table, or add the columns an existing (pre-migration) table lacks."""
    inspector = sa.inspect(op.get_bind())
    if not inspector.has_table(name):
        op.create_table(name, *elements, **options)
        return
    present = {column["name"] for column in inspector.get_columns(name)}
    missing = [e for e in elements if isinstance(e, sa.Column) and e.name not in present]
    if missing:
        with op.batch_alter_table(name) as batch:
            for column in missing:
                column.nullable = True  # rows written before the column existed have no value for it
                batch.add_column(column)
