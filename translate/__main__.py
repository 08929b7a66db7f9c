from translate.cli import app

app()
