// Jobs
