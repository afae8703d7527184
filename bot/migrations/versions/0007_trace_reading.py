"""A turn trace's reading: why a searched turn was answered, hedged or "not found" (issue 51 item 6).

Revision ID: 0007
Revises: 0006
"""
import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('turntrace') as batch:
        batch.add_column(sa.Column('reading', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('turntrace') as batch:
        batch.drop_column('reading')
