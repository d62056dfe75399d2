"""PlayerRating becomes a view over the entries of the newest current list of each type instead of a table the
publication copied two million rows into (ratings.models.PlayerRating says why).

Reversing it recreates the table and fills it from the view's query, so the code of 0008 finds what it wrote.
The SQL is copied here as it is at this migration: a migration must not follow later changes of the model.
"""

import django.db.models.deletion
from django.db import migrations, models

CURRENT_ENTRIES = """
SELECT e.id, e.player_id, l.rating_type, e.rating, e.k_factor, e.games, e.inactive, e.rated_games_total,
    e.rating_list_id, e.last_game_date, e.rank, e.federation_rank
FROM ratings_ratinglistentry AS e
JOIN ratings_ratinglist AS l ON l.id = e.rating_list_id
WHERE l.status = 'published' AND l.superseded_by_id IS NULL
    AND NOT EXISTS (
        SELECT 1 FROM ratings_ratinglist AS n
        WHERE n.rating_type = l.rating_type AND n.status = 'published' AND n.superseded_by_id IS NULL
            AND n.list_date > l.list_date
    )
"""
COLUMNS = (
    "player_id, rating_type, rating, k_factor, games, inactive, rated_games_total, rating_list_id, "
    "last_game_date, rank, federation_rank"
)
REFILL_TABLE = f"INSERT INTO ratings_playerrating ({COLUMNS}) SELECT {COLUMNS} FROM ({CURRENT_ENTRIES}) AS c"


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0003_search_name_code_point_collation'),
        ('ratings', '0008_list_positions'),
    ]

    operations = [
        # (backwards only: runs last, once the table is back)
        migrations.RunSQL(migrations.RunSQL.noop, reverse_sql=REFILL_TABLE),
        migrations.DeleteModel(name='PlayerRating'),
        migrations.CreateModel(
            name='PlayerRating',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('rating_type', models.CharField(choices=[('standard', 'Standard'), ('rapid', 'Rapid'), ('blitz', 'Blitz')], max_length=8)),
                ('rating', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('k_factor', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('games', models.PositiveSmallIntegerField(default=0)),
                ('inactive', models.BooleanField(default=False)),
                ('rated_games_total', models.PositiveIntegerField(default=0)),
                ('last_game_date', models.DateField(blank=True, null=True)),
                ('rank', models.PositiveIntegerField(blank=True, help_text="As on the list's entry", null=True)),
                ('federation_rank', models.PositiveIntegerField(blank=True, help_text="As on the list's entry", null=True)),
                ('player', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='ratings', to='players.player')),
                ('rating_list', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='ratings.ratinglist')),
            ],
            options={
                'db_table': 'ratings_playerrating',
                'managed': False,
            },
        ),
        migrations.RunSQL(
            f"CREATE VIEW ratings_playerrating AS {CURRENT_ENTRIES}",
            reverse_sql="DROP VIEW ratings_playerrating",
        ),
    ]
