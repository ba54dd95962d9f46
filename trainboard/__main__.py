from trainboard.cli import main

main()
