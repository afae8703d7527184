"""An index run's pages done of its total, so `docbot status` and the chat say "indexing 212 of 853 pages"
while a first pass runs.

Revision ID: 0006
Revises: 0005
"""
import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('indexrun') as batch:
        batch.add_column(sa.Column('pages_done', sa.Integer(), nullable=False, server_default='0'))
        batch.add_column(sa.Column('pages_total', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('indexrun') as batch:
        batch.drop_column('pages_total')
        batch.drop_column('pages_done')
