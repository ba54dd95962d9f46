"""Who may see what: roles, tokens and the rules over the store's accounts (users, tokens, grants)."""
