"""Per-source sync state: a connector's stored cursor, the settings it was taken under, the last success
and the last error (`docbot sources`).

Revision ID: 0003
Revises: 0002
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('sourcestate',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('cursor', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('fingerprint', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('last_success', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('last_error', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('error_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('requests', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )


def downgrade() -> None:
    op.drop_table('sourcestate')
