"""The dashboard's page scripts (run by Streamlit through ``st.navigation``; not imported)."""
