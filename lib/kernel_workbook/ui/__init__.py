"""Widget panels and Altair chart builders shared by the notebooks."""

from .charts import df_pct_change, plot_pct_change, plot_values
from .panels import provenance, show_table, table_explorer, thread_summary
from .trace_panels import trace_explorer

__all__ = ["df_pct_change", "plot_pct_change", "plot_values", "provenance", "show_table",
           "table_explorer", "thread_summary", "trace_explorer"]
