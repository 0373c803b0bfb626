"""`python -m scanner.synthetic`: write synthetic cases (scanner.synthetic.case.main)."""

from scanner.synthetic.case import main

raise SystemExit(main())
