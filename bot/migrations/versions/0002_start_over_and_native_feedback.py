"""Start over in a 1:1 chat (conversation.reset_after), comments from Teams' native feedback form, and
which platform message shows which answer (Teams' feedback names only its message).

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('platformmessage',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('platform', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('platform_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('message_id', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('platform', 'platform_id')
    )
    with op.batch_alter_table('platformmessage', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_platformmessage_message_id'), ['message_id'], unique=False)

    with op.batch_alter_table('conversation', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reset_after', sa.Integer(), server_default='0', nullable=False))

    with op.batch_alter_table('feedback', schema=None) as batch_op:
        batch_op.add_column(sa.Column('comment', sqlmodel.sql.sqltypes.AutoString(), server_default='', nullable=False))



def downgrade() -> None:
    with op.batch_alter_table('feedback', schema=None) as batch_op:
        batch_op.drop_column('comment')

    with op.batch_alter_table('conversation', schema=None) as batch_op:
        batch_op.drop_column('reset_after')

    with op.batch_alter_table('platformmessage', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_platformmessage_message_id'))

    op.drop_table('platformmessage')
