from django.db import migrations, models


def sent_rows_are_finished(apps, schema_editor):
    # Rows from before this field: their tasks ran long ago; never take them for lost ones.
    PendingTask = apps.get_model("outbox", "PendingTask")
    PendingTask.objects.filter(sent_at__isnull=False).update(finished_at=models.F("sent_at"))


class Migration(migrations.Migration):
    dependencies = [
        ("outbox", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="pendingtask",
            name="finished_at",
            field=models.DateTimeField(
                blank=True,
                help_text="When a worker ran the task to an end (done or refused); empty while it may still be lost",
                null=True,
            ),
        ),
        migrations.RunPython(sent_rows_are_finished, migrations.RunPython.noop),
    ]
