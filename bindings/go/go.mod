module lake

go 1.19
