"""`python -m mqtool` entry point."""

from mqtool.cli import main

if __name__ == "__main__":
    main()
