"""mmtests tables: parse them from mail, compute them from samples, print them."""
