from nbfft_experiments.cli import main

raise SystemExit(main())
