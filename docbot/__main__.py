from docbot.cli import main

main()
