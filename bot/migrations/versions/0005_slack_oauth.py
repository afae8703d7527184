"""Slack's OAuth installation and state tables, under Alembic like the rest of the schema.

slack_sdk's SQLAlchemy stores (adapters/slack_install.py) read and write these tables; until now
docbot made them with slack_sdk's `create_all` when OAuth was configured, outside the migrations.
Their layout is slack_sdk's (3.4x: `build_installations_table`, `build_bots_table`,
`build_oauth_states_table`), written out here because `bot` never imports a chat SDK; a test
compares it with slack_sdk's own. A database where `create_all` already made them keeps its tables
and rows (an older slack_sdk's table gains the columns it lacks).

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def _workspace_columns(enterprise_url: bool) -> list[sa.Column]:
    """Which app was installed where: the start of both installation tables."""
    return [
        sa.Column('id', sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column('client_id', sa.String(32), nullable=False),
        sa.Column('app_id', sa.String(32), nullable=False),
        sa.Column('enterprise_id', sa.String(32)),
        sa.Column('enterprise_name', sa.String(200)),
        *([sa.Column('enterprise_url', sa.String(200))] if enterprise_url else []),
        sa.Column('team_id', sa.String(32)),
        sa.Column('team_name', sa.String(200)),
    ]


def _bot_columns() -> list[sa.Column]:
    return [
        sa.Column('bot_token', sa.String(200)),
        sa.Column('bot_id', sa.String(32)),
        sa.Column('bot_user_id', sa.String(32)),
        sa.Column('bot_scopes', sa.String(1000)),
        sa.Column('bot_refresh_token', sa.String(200)),
        sa.Column('bot_token_expires_at', sa.DateTime()),
    ]


def upgrade() -> None:
    _create_or_complete(
        'slack_installations',
        *_workspace_columns(enterprise_url=True),
        *_bot_columns(),
        sa.Column('user_id', sa.String(32), nullable=False),
        sa.Column('user_token', sa.String(200)),
        sa.Column('user_scopes', sa.String(1000)),
        sa.Column('user_refresh_token', sa.String(200)),
        sa.Column('user_token_expires_at', sa.DateTime()),
        sa.Column('incoming_webhook_url', sa.String(200)),
        sa.Column('incoming_webhook_channel', sa.String(200)),
        sa.Column('incoming_webhook_channel_id', sa.String(200)),
        sa.Column('incoming_webhook_configuration_url', sa.String(200)),
        sa.Column('is_enterprise_install', sa.Boolean(), nullable=False),
        sa.Column('token_type', sa.String(32)),
        sa.Column('installed_at', sa.DateTime(), nullable=False),
    )
    op.create_index('slack_installations_idx', 'slack_installations',
                    ['client_id', 'enterprise_id', 'team_id', 'user_id', 'installed_at'], if_not_exists=True)
    _create_or_complete(
        'slack_bots',
        *_workspace_columns(enterprise_url=False),
        *_bot_columns(),
        sa.Column('is_enterprise_install', sa.Boolean(), nullable=False),
        sa.Column('installed_at', sa.DateTime(), nullable=False),
    )
    op.create_index('slack_bots_idx', 'slack_bots', ['client_id', 'enterprise_id', 'team_id', 'installed_at'],
                    if_not_exists=True)
    _create_or_complete(
        'slack_oauth_states',
        sa.Column('id', sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column('state', sa.String(200), nullable=False),
        sa.Column('expire_at', sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_index('slack_bots_idx', table_name='slack_bots', if_exists=True)
    op.drop_index('slack_installations_idx', table_name='slack_installations', if_exists=True)
    for table in ('slack_oauth_states', 'slack_bots', 'slack_installations'):
        op.drop_table(table)


def _create_or_complete(name: str, *columns: sa.Column) -> None:
    """Create the table, or add the columns a table made by an older slack_sdk's `create_all` lacks
    (nullable: its rows have no value for them)."""
    inspector = sa.inspect(op.get_bind())
    if not inspector.has_table(name):
        op.create_table(name, *columns)
        return
    present = {column["name"] for column in inspector.get_columns(name)}
    missing = [c for c in columns if c.name not in present]
    if missing:
        with op.batch_alter_table(name) as batch:
            for column in missing:
                column.nullable = True
                batch.add_column(column)
