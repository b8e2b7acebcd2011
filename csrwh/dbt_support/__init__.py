"""Python that the dbt project loads while it runs: the DuckDB functions the profile registers
(``udfs``), the partition helpers of the Python models (``partitions``) and the dbt sources file
reader (``dbt_sources``). It sits below the build pipeline: it imports nothing of it."""
