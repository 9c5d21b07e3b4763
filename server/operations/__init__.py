"""The operators' side: the admin requests (`admin`), over the lobby's and the tables'."""
