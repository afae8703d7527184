"""Everyone seen in a thread docbot takes part in, so "one person and docbot" counts them all.

Revision ID: 0004
Revises: 0003
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('participant',
    sa.Column('conversation_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.ForeignKeyConstraint(['conversation_id'], ['conversation.id'], ),
    sa.PrimaryKeyConstraint('conversation_id', 'user_id')
    )


def downgrade() -> None:
    op.drop_table('participant')
