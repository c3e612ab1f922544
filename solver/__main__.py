"""`python -m solver` runs the `sabords` command line."""

from solver.cli import main

if __name__ == "__main__":
    main()
