from translate.cli.app import app

app()
